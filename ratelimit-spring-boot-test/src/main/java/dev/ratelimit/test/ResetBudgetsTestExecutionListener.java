package dev.ratelimit.test;

import dev.ratelimit.autoconfigure.RateLimitProperties;

import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Resets every budget of the application before each test method of a class annotated with
 * {@link AutoConfigureRateLimit}, ahead of the test's own {@code @BeforeEach} methods: so that one test's refusals
 * never leak into the next, whichever order they run in and however the context is cached; nothing when the test
 * turned ratelimit off. Registered in {@code META-INF/spring.factories}.
 */
final class ResetBudgetsTestExecutionListener extends AbstractTestExecutionListener {

	/** After Spring's own listeners, which prepare the context and inject the test instance. */
	private static final int ORDER = 10_000;

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	public void beforeTestMethod(TestContext testContext) {
		if (TestContextAnnotationUtils.hasAnnotation(testContext.getTestClass(), AutoConfigureRateLimit.class)) {
			ApplicationContext context = testContext.getApplicationContext();
			// without ratelimit's properties (ratelimit.enabled=false) there is no budget to reset
			if (context.getBeanNamesForType(RateLimitProperties.class).length > 0) {
				context.getBean(RateLimitBudgets.class).resetAll();
			}
		}
	}

}
