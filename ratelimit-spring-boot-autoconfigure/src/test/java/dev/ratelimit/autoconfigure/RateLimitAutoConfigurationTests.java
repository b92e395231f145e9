package dev.ratelimit.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.RedisRateLimitOverrides;
import dev.ratelimit.redis.GcraRateLimiter;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.RedisScriptRunner;
import dev.ratelimit.redis.SlidingWindowCounterRateLimiter;
import dev.ratelimit.redis.SlidingWindowRateLimiter;
import dev.ratelimit.redis.TokenBucketRateLimiter;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

class RateLimitAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class));

	@Test
	void registersALimiterPerAlgorithmWithTheSeedKeysByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(FixedWindowRateLimiter.class)
				.hasSingleBean(SlidingWindowRateLimiter.class)
				.hasSingleBean(RateLimitProperties.class);
			assertThat(context).hasSingleBean(SlidingWindowCounterRateLimiter.class)
				.hasSingleBean(TokenBucketRateLimiter.class)
				.hasSingleBean(GcraRateLimiter.class);
			assertThat(context.getBeansOfType(RateLimiter.class).values()).extracting(RateLimiter::algorithm)
				.containsExactlyInAnyOrder(Algorithm.values());
			assertThat(context.getBean(FixedWindowRateLimiter.class).redisKey("a")).isEqualTo("rate:fixed:a");
			assertThat(context.getBean(SlidingWindowRateLimiter.class).redisKey("a")).isEqualTo("rate:sliding:a");
		});
	}

	@Test
	void usesTheConfiguredKeyPrefix() {
		this.runner.withPropertyValues("ratelimit.key-prefix=shop")
			.run((context) -> assertThat(context.getBean(FixedWindowRateLimiter.class).redisKey("a"))
				.isEqualTo("shop:fixed:a"));
	}

	@Test
	void refusesAKeyPrefixWithSpaces() {
		this.runner.withPropertyValues("ratelimit.key-prefix=my shop").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("ratelimit.key-prefix")
				.hasMessageContaining("my shop");
		});
	}

	@Test
	void keepsTheOverridesInRedisReadEveryFiveSecondsUnlessDisabled() {
		this.runner.run((context) -> assertThat(context.getBean(RedisRateLimitOverrides.class).refreshInterval())
			.isEqualTo(Duration.ofSeconds(5)));
		this.runner.withPropertyValues("ratelimit.overrides.refresh-interval=250ms")
			.run((context) -> assertThat(context.getBean(RedisRateLimitOverrides.class).refreshInterval())
				.isEqualTo(Duration.ofMillis(250)));
		this.runner.withPropertyValues("ratelimit.overrides.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedisRateLimitOverrides.class));
		// an application that keeps its overrides elsewhere
		this.runner.withBean(RateLimitOverrides.class, () -> RateLimitOverrides.NONE)
			.run((context) -> assertThat(context).doesNotHaveBean(RedisRateLimitOverrides.class)
				.hasSingleBean(RateLimitOverrides.class));
	}

	@Test
	void refusesARefreshIntervalOfZero() {
		this.runner.withPropertyValues("ratelimit.overrides.refresh-interval=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("ratelimit.overrides.refresh-interval")
				.hasMessageContaining("refreshInterval must be positive");
		});
	}

	@Test
	void acceptsTheNamesOfEveryPartWhateverTechnologiesAreAbsent() {
		this.runner
			.withPropertyValues("ratelimit.clients.partner.urls=https://partner.example/**",
					"ratelimit.clients.partner.limit=5", "ratelimit.clients.partner.window=1s", "ratelimit.filter.order=5")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void stopsOnANameThatNoPartBinds() {
		this.runner.withPropertyValues("ratelimit.filter.order=5", "ratelimit.filtr.order=5").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(UnboundConfigurationPropertiesException.class)
				.hasMessageContaining("ratelimit.filtr.order")
				.hasMessageNotContaining("ratelimit.filter.order");
		});
	}

	@Test
	void registersNothingWhenDisabled() {
		this.runner.withPropertyValues("ratelimit.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimiter.class);
			assertThat(context).doesNotHaveBean(RateLimitProperties.class);
		});
	}

	@Test
	void registersNothingWithoutARedisConnectionFactory() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimiter.class));
	}

	@Test
	void backsOffWhenSpringDataRedisIsNotOnTheClassPath() {
		this.runner.withClassLoader(new FilteredClassLoader(RedisConnectionFactory.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimiter.class));
	}

	@Test
	void letsTheApplicationsOwnLimiterBeansWin() {
		this.runner.withUserConfiguration(UserLimiters.class).run((context) -> {
			assertThat(context).hasSingleBean(FixedWindowRateLimiter.class)
				.hasSingleBean(SlidingWindowRateLimiter.class);
			assertThat(context.getBean(FixedWindowRateLimiter.class)).isSameAs(context.getBean("myFixed"));
			assertThat(context.getBean(SlidingWindowRateLimiter.class)).isSameAs(context.getBean("mySliding"));
			assertThat(context.getBean(SlidingWindowCounterRateLimiter.class)).isSameAs(context.getBean("myCounter"));
			assertThat(context.getBean(TokenBucketRateLimiter.class)).isSameAs(context.getBean("myBucket"));
			assertThat(context.getBean(GcraRateLimiter.class)).isSameAs(context.getBean("myGcra"));
		});
	}

	@Test
	void boundsDecisionsByTheTimeoutWithLettuceAndSharesOneBreaker() {
		this.runner.withPropertyValues("ratelimit.timeout=150ms", "ratelimit.circuit-breaker.failure-threshold=7",
				"ratelimit.circuit-breaker.open-duration=3s")
			.run((context) -> {
				assertThat(context).hasSingleBean(LettuceScriptRunner.class).hasSingleBean(CircuitBreaker.class);
				FixedWindowRateLimiter fixed = context.getBean(FixedWindowRateLimiter.class);
				assertThat(part(fixed, "runner")).isSameAs(context.getBean(LettuceScriptRunner.class));
				assertThat(part(fixed, "runner")).extracting("timeout").isEqualTo(Duration.ofMillis(150));
				assertThat(part(fixed, "circuitBreaker")).isSameAs(context.getBean(CircuitBreaker.class));
				assertThat(part(fixed, "circuitBreaker")).extracting("failureThreshold").isEqualTo(7);
				assertThat(part(fixed, "fallback")).isNull();
				GcraRateLimiter gcra = context.getBean(GcraRateLimiter.class);
				for (String shared : new String[] { "runner", "circuitBreaker", "denialCache" }) {
					assertThat(part(gcra, shared)).isSameAs(part(fixed, shared));
				}
				// started with the context: it connects in the background before the first decision
				assertThat(context.getBean(LettuceScriptRunner.class).isRunning()).isTrue();
				assertThat(context.getBean(LettuceScriptRunner.class).isBatching()).isTrue();
			});
	}

	@Test
	void batchesDecisionsUnlessToldNotTo() {
		this.runner.withPropertyValues("ratelimit.batching.enabled=false")
			.run((context) -> assertThat(context.getBean(LettuceScriptRunner.class).isBatching()).isFalse());
	}

	@Test
	void fallsBackToTheTemplateWithAnotherClientThanLettuce() {
		// only the bean's type matters here: no call reaches it
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
			.withBean(RedisConnectionFactory.class, () -> mock(RedisConnectionFactory.class))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(LettuceScriptRunner.class).hasSingleBean(RedisScriptRunner.class);
				assertThat(part(context.getBean(FixedWindowRateLimiter.class), "runner"))
					.isSameAs(context.getBean(RedisScriptRunner.class));
			});
	}

	@Test
	void remembersRefusalsUnlessTheLocalCacheIsOff() {
		this.runner.withPropertyValues("ratelimit.local-cache.max-keys=123").run((context) -> {
			assertThat(context).hasSingleBean(LocalDenialCache.class);
			assertThat(part(context.getBean(FixedWindowRateLimiter.class), "denialCache"))
				.isSameAs(context.getBean(LocalDenialCache.class))
				.extracting("maxKeys")
				.isEqualTo(123);
		});
		this.runner.withPropertyValues("ratelimit.local-cache.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LocalDenialCache.class);
			assertThat(part(context.getBean(FixedWindowRateLimiter.class), "denialCache")).isNull();
		});
	}

	@Test
	void decidesInMemoryInTheLocalFailureMode() {
		this.runner.withPropertyValues("ratelimit.failure-mode=local", "ratelimit.local.max-keys=50")
			.run((context) -> assertThat(part(context.getBean(FixedWindowRateLimiter.class), "fallback"))
				.isSameAs(context.getBean(LocalRateLimiter.class))
				.isInstanceOf(LocalRateLimiter.class)
				.extracting("maxKeys")
				.isEqualTo(50));
	}

	@Test
	void refusesBadResilienceSettingsAndNamesThem() {
		this.runner.withPropertyValues("ratelimit.timeout=0s")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property ratelimit.timeout with value '0s' is invalid")
				.hasMessageContaining("timeout must be positive"));
		this.runner.withPropertyValues("ratelimit.circuit-breaker.failure-threshold=0")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("ratelimit.circuit-breaker")
				.hasMessageContaining("failureThreshold must be at least 1"));
		this.runner.withPropertyValues("ratelimit.failure-mode=local", "ratelimit.local.max-keys=0")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property ratelimit.local.max-keys with value '0' is invalid"));
	}

	/**
	 * Returns a part the starter built a limiter with: the limiters show none of them, so the test reads the
	 * fields of the {@link dev.ratelimit.redis.RedisRateLimiter} a typed limiter wraps: its script's runner, or a
	 * part of its guard.
	 */
	private static Object part(RateLimiter limiter, String name) {
		Object redis = org.springframework.test.util.ReflectionTestUtils.getField(limiter, "limiter");
		Object owner = org.springframework.test.util.ReflectionTestUtils.getField(redis, name.equals("runner") ? "script" : "guard");
		return org.springframework.test.util.ReflectionTestUtils.getField(owner, name);
	}

	@Configuration(proxyBeanMethods = false)
	static class UserLimiters {

		@Bean
		FixedWindowRateLimiter myFixed(StringRedisTemplate template) {
			return new FixedWindowRateLimiter(template, "mine", null);
		}

		@Bean
		SlidingWindowRateLimiter mySliding(StringRedisTemplate template) {
			return new SlidingWindowRateLimiter(template, "mine", null);
		}

		@Bean
		SlidingWindowCounterRateLimiter myCounter(StringRedisTemplate template) {
			return new SlidingWindowCounterRateLimiter(template, "mine", null);
		}

		@Bean
		TokenBucketRateLimiter myBucket(StringRedisTemplate template) {
			return new TokenBucketRateLimiter(template, "mine", null);
		}

		@Bean
		GcraRateLimiter myGcra(StringRedisTemplate template) {
			return new GcraRateLimiter(template, "mine", null);
		}

	}

}
