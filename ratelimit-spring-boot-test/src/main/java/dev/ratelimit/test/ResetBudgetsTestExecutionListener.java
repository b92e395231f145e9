package dev.ratelimit.test;

import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Resets every budget of the application before each test method of a class annotated with
 * {@link AutoConfigureRateLimit}, ahead of the test's own {@code @BeforeEach} methods: so that one test's refusals
 * never leak into the next, whichever order they run in and however the context is cached. Registered in
 * {@code META-INF/spring.factories}.
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
			testContext.getApplicationContext().getBean(RateLimitBudgets.class).resetAll();
		}
	}

}
