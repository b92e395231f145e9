package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisRateLimitOverrides} on a real Redis, as two instances of one application: one sets, the other applies
 * from its next read (one script call) and stops at the override's end by its own clock, which the test moves; keys
 * win over patterns, and the hash expires with its longest-lived override.
 */
class RedisRateLimitOverridesTests {

	private static final LettuceConnectionFactory factory = RedisTestServer.shared().newConnectionFactory();

	private static final LettuceScriptRunner runner = started(new LettuceScriptRunner(factory, Duration.ofSeconds(10)));

	private static final List<RateLimit> FIVE = List.of(new RateLimit(5, Duration.ofMinutes(1)));

	private final String prefix = "overrides-" + UUID.randomUUID().toString().substring(0, 8);

	private final AtomicLong nanos = new AtomicLong();

	private final RedisRateLimitOverrides one = new RedisRateLimitOverrides(runner, this.prefix, Duration.ofSeconds(5));

	private final RedisRateLimitOverrides other = new RedisRateLimitOverrides(runner, this.prefix, Duration.ofSeconds(5),
			this.nanos::get);

	@AfterAll
	static void close() {
		runner.close();
		factory.destroy();
	}

	@Test
	void anotherInstanceAppliesAnOverrideFromItsNextReadInOneScriptCall() {
		this.one.set("api", "acme", FIVE, null);
		assertThat(this.one.limits("api", "acme")).isEqualTo(FIVE);
		assertThat(this.other.limits("api", "acme")).isNull();
		long before = RedisTestServer.shared().scriptCalls();
		this.other.refresh();
		assertThat(RedisTestServer.shared().scriptCalls() - before).isEqualTo(1);
		assertThat(this.other.limits("api", "acme")).isEqualTo(FIVE);
		assertThat(this.other.limits("api", "acme-2")).isNull();
		assertThat(this.other.limits("other-rule", "acme")).isNull();

		assertThat(this.one.remove("api", "acme")).isTrue();
		assertThat(this.one.remove("api", "acme")).isFalse();
		assertThat(this.one.limits("api", "acme")).isNull();
		assertThat(this.other.limits("api", "acme")).isEqualTo(FIVE);
		this.other.refresh();
		assertThat(this.other.limits("api", "acme")).isNull();
	}

	@Test
	void anOverrideStopsApplyingAtItsEndByTheInstancesOwnClock() {
		this.one.set("api", "brief", FIVE, Duration.ofSeconds(30));
		this.other.refresh();
		assertThat(this.other.list("api")).singleElement()
			.satisfies((override) -> assertThat(override.expiresAt()).isNotNull());
		this.nanos.addAndGet(Duration.ofSeconds(29).toNanos());
		assertThat(this.other.limits("api", "brief")).isEqualTo(FIVE);
		// a second later, with no read in between (the list above read again at the start)
		this.nanos.addAndGet(Duration.ofSeconds(1).toNanos());
		assertThat(this.other.limits("api", "brief")).isNull();
	}

	@Test
	void aKeysOwnOverrideWinsOverPatternsAndTheMostSpecificPatternOverOthers() {
		List<RateLimit> ten = List.of(new RateLimit(10, Duration.ofMinutes(1)));
		List<RateLimit> twenty = List.of(new RateLimit(20, Duration.ofMinutes(1)));
		this.one.set("api", "partner-*", ten, null);
		this.one.set("api", "partner-b*", twenty, null);
		this.one.set("api", "partner-big", FIVE, null);
		this.other.refresh();
		assertThat(this.other.limits("api", "partner-a")).isEqualTo(ten);
		assertThat(this.other.limits("api", "partner-bob")).isEqualTo(twenty);
		assertThat(this.other.limits("api", "partner-big")).isEqualTo(FIVE);
		assertThat(this.other.limits("api", "partners")).isNull();
		assertThat(this.other.list("api")).extracting("key").containsExactly("partner-*", "partner-b*", "partner-big");
	}

	@Test
	void theHashExpiresWithItsLongestLivedOverrideAndHasNoEndWhileOneHasNone() {
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		redis.afterPropertiesSet();
		String hash = this.prefix + ":overrides";
		this.one.set("api", "a", FIVE, Duration.ofSeconds(10));
		this.one.set("api", "b", FIVE, Duration.ofSeconds(20));
		assertThat(redis.getExpire(hash, TimeUnit.MILLISECONDS)).isBetween(10_001L, 20_000L);
		this.one.set("api", "c", FIVE, null);
		assertThat(redis.getExpire(hash, TimeUnit.MILLISECONDS)).isEqualTo(-1);
		this.one.remove("api", "c");
		assertThat(redis.getExpire(hash, TimeUnit.MILLISECONDS)).isBetween(10_001L, 20_000L);
		this.one.remove("api", "b");
		assertThat(redis.getExpire(hash, TimeUnit.MILLISECONDS)).isBetween(1L, 10_000L);
		this.one.remove("api", "a");
		assertThat(redis.hasKey(hash)).isFalse();
	}

	private static LettuceScriptRunner started(LettuceScriptRunner runner) {
		runner.start();
		return runner;
	}

}
