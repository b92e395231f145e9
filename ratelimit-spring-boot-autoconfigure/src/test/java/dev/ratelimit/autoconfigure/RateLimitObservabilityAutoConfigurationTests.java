package dev.ratelimit.autoconfigure;

import dev.ratelimit.autoconfigure.actuate.RateLimitEndpointAutoConfiguration;
import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.actuate.RateLimitEndpoint;
import dev.ratelimit.rules.flow.RateLimitObserver;
import dev.ratelimit.web.servlet.RateLimitInterceptor;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Metrics, the actuator endpoint and shadow mode, present and absent as Micrometer, Actuator and the
 * properties say.
 */
class RateLimitObservabilityAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitMetricsAutoConfiguration.class, RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class,
				RateLimitEndpointAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=5",
				"ratelimit.rules.api.window=1m");

	@Test
	void recordsDecisionsWhenAMeterRegistryIsPresent() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> assertThat(context).hasBean("rateLimitMetricsObserver"));
		// an observer of the application's own is told too: it does not replace the metrics
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withBean("myObserver", RateLimitObserver.class, () -> RateLimitObserver.NONE)
			.run((context) -> assertThat(context).hasBean("rateLimitMetricsObserver").hasBean("myObserver"));
	}

	@Test
	void refusesANearLimitRatioOutOfRangeNamingThePropertyAndTheFix() {
		for (String ratio : new String[] { "0", "-0.5", "1.5" }) {
			this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
				.withPropertyValues("ratelimit.metrics.near-limit-ratio=" + ratio)
				.run((context) -> {
					assertThat(context).hasFailed();
					assertThat(context.getStartupFailure()).rootCause()
						.hasMessageContaining("ratelimit.metrics.near-limit-ratio")
						.hasMessageContaining(ratio)
						.hasMessageContaining("must be more than 0 and at most 1");
				});
		}
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("ratelimit.metrics.near-limit-ratio=1")
			.run((context) -> assertThat(context).hasNotFailed().hasBean("rateLimitMetricsObserver"));
	}

	@Test
	void recordsNothingWithoutAMeterRegistry() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean("rateLimitMetricsObserver"));
	}

	@Test
	void recordsNothingWithoutMicrometer() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("rateLimitMetricsObserver")
				.hasSingleBean(RateLimitInterceptor.class));
	}

	@Test
	void publishesTheEndpointOnlyWhenExposed() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(RateLimitEndpoint.class));
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=ratelimit")
			.run((context) -> assertThat(context).hasSingleBean(RateLimitEndpoint.class));
	}

	@Test
	void theEndpointTellsWhetherRedisDecides() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=ratelimit",
				"ratelimit.circuit-breaker.failure-threshold=1")
			.run((context) -> {
				RateLimitEndpoint endpoint = context.getBean(RateLimitEndpoint.class);
				assertThat(endpoint.rules().redis()).isEqualTo("up");
				assertThat(endpoint.rules().circuitBreaker()).isEqualTo("closed");
				context.getBean(CircuitBreaker.class).onFailure(new IllegalStateException("Redis refused the connection"));
				assertThat(endpoint.rules().redis()).isEqualTo("down");
				assertThat(endpoint.rules().circuitBreaker()).isEqualTo("open");
			});
	}

	@Test
	void publishesNoEndpointWithoutActuator() {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimit")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitEndpoint.class));
	}

	@Test
	void startsFineInANonWebApplicationAndCountsTheDecisionsOfBeanMethods() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RateLimitMetricsAutoConfiguration.class,
					RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class, RateLimitEndpointAutoConfiguration.class))
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("management.endpoints.web.exposure.include=ratelimit")
			// the request rules of properties apply to nothing there; @RateLimited bean methods are decided, counted and
			// listed by the endpoint the application exposes
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean("rateLimitMetricsObserver")
				.hasSingleBean(RateLimitEndpoint.class));
	}

	@Test
	void putsEveryRuleInShadowModeUnlessARuleSaysOtherwise() {
		this.runner
			.withPropertyValues("ratelimit.shadow=true", "ratelimit.rules.strict.paths=/strict",
					"ratelimit.rules.strict.limit=1", "ratelimit.rules.strict.window=1s",
					"ratelimit.rules.strict.shadow=false")
			.run((context) -> assertThat(context.getBean(RateLimitRuleRegistry.class).pathRules())
				.extracting(RateLimitRule::name, RateLimitRule::shadow)
				.containsExactly(org.assertj.core.groups.Tuple.tuple("api", true),
						org.assertj.core.groups.Tuple.tuple("strict", false)));
		this.runner.withPropertyValues("ratelimit.rules.api.shadow=true")
			.run((context) -> assertThat(context.getBean(RateLimitRuleRegistry.class).pathRules().get(0).shadow())
				.isTrue());
	}

}
