package dev.ratelimit.gateway;

import org.junit.jupiter.api.Test;

import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration among the gateway's own, with every auto-configuration on the class path.
 */
class RateLimitGatewayAutoConfigurationTests {

	private static final String ROUTE = TestGateway.ROUTES + "[0]";

	private static final String ARGS = ROUTE + ".filters[0].args.";

	private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
		.withUserConfiguration(TestGateway.Application.class)
		.withPropertyValues("spring.data.redis.url=" + RedisTestServer.shared().url());

	@Test
	void isTheFiltersRateLimiterAndSpringCloudGatewaysRedisRateLimiterBacksOff() {
		route(ARGS + "ratelimit.limit=5", ARGS + "ratelimit.window=1m").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(RateLimiter.class).hasSingleBean(GatewayRateLimiter.class);
			assertThat(context).doesNotHaveBean(RedisRateLimiter.class).doesNotHaveBean("redisRateLimiter");
			assertThat(context.getBean(RequestRateLimiterGatewayFilterFactory.class).getDefaultRateLimiter())
				.isSameAs(context.getBean(GatewayRateLimiter.class));
		});
	}

	@Test
	void backsOffForARateLimiterOfTheApplication() {
		this.runner.withUserConfiguration(OwnRateLimiter.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(GatewayRateLimiter.class);
			assertThat(context).getBean(RateLimiter.class).isSameAs(context.getBean("ownRateLimiter"));
			assertThat(context.getBean(RequestRateLimiterGatewayFilterFactory.class).getDefaultRateLimiter())
				.isSameAs(context.getBean("ownRateLimiter"));
		});
	}

	@Test
	void leavesSpringCloudGatewaysRedisRateLimiterWhenRateLimitingIsDisabled() {
		this.runner.withPropertyValues("ratelimit.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(GatewayRateLimiter.class).hasSingleBean(RedisRateLimiter.class);
		});
	}

	@Test
	void backsOffWhenTheFilterIsDisabled() {
		this.runner.withPropertyValues("spring.cloud.gateway.server.webflux.filter.request-rate-limiter.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(GatewayRateLimiter.class));
	}

	@Test
	void backsOffWithoutTheGateway() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitGatewayAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.url=" + RedisTestServer.shared().url())
			.withClassLoader(new FilteredClassLoader(RateLimiter.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisScriptRunner.class)
				.doesNotHaveBean(RateLimitGatewayAutoConfiguration.class));
	}

	@Test
	void backsOffWithoutTheStartersLimiters() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitGatewayAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(GatewayRateLimiter.class));
	}

	@Test
	void stopsTheApplicationOnAnInvalidArgNamingTheProperty() {
		route(ARGS + "ratelimit.limit=0", ARGS + "ratelimit.window=1m").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessage("Property " + ARGS + "ratelimit.limit with value '0' is invalid: limit must be at least 1, "
						+ "but was 0 (ratelimit.limit of the RequestRateLimiter filter of route 'orders')");
		});
	}

	@Test
	void stopsTheApplicationOnAnUnknownArg() {
		route(ARGS + "ratelimit.limit=5", ARGS + "ratelimit.windw=1m").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageStartingWith("Property " + ARGS + "ratelimit.windw with value '1m' is invalid: not an arg of "
						+ "ratelimit's rate limiter; use ratelimit.limit, ratelimit.window");
		});
	}

	@Test
	void stopsTheApplicationOnTheArgsOfSpringCloudGatewaysRedisRateLimiterSayingHowToSwitch() {
		route(ARGS + "redis-rate-limiter.replenishRate=10", ARGS + "redis-rate-limiter.burstCapacity=20")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.hasMessageContaining(ARGS + "ratelimit.limit")
					.hasMessageContaining("in place of redis-rate-limiter.*")
					.hasMessageContaining("ratelimit.algorithm=token-bucket, ratelimit.limit=R, ratelimit.window=1s, "
							+ "ratelimit.burst=B and ratelimit.cost=T");
			});
	}

	@Test
	void refusesRoutesThatShareABudgetUnderOtherLimits() {
		String second = TestGateway.ROUTES + "[1]";
		route(ARGS + "ratelimit.budget=search", ARGS + "ratelimit.limit=3", ARGS + "ratelimit.window=1h")
			.withPropertyValues(second + ".id=more", second + ".uri=http://127.0.0.1:9",
					second + ".predicates[0]=Path=/more/**", second + ".filters[0].name=RequestRateLimiter",
					second + ".filters[0].args.ratelimit.budget=search", second + ".filters[0].args.ratelimit.limit=5",
					second + ".filters[0].args.ratelimit.window=1h")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining(second + ".filters[0].args.ratelimit.budget")
				.hasMessageContaining("route 'orders' shares this budget under other limits"));
	}

	private ReactiveWebApplicationContextRunner route(String... args) {
		return this.runner
			.withPropertyValues(ROUTE + ".id=orders", ROUTE + ".uri=http://127.0.0.1:9",
					ROUTE + ".predicates[0]=Path=/orders/**", ROUTE + ".filters[0].name=RequestRateLimiter")
			.withPropertyValues(args);
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRateLimiter {

		@Bean
		RedisRateLimiter ownRateLimiter() {
			return new RedisRateLimiter(1, 1);
		}

	}

}
