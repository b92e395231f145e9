package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.RateLimit;

import static org.assertj.core.api.Assertions.assertThat;

class RedisKeysTests {

	private final RedisKeys keys = new RedisKeys("rate", "fixed");

	@Test
	void boundsEveryKeyHeldInMemoryWhateverTheIdsLength() {
		String longKey = "k".repeat(10_000);
		List<RateLimit> limits = List.of(RateLimit.of(5, Duration.ofSeconds(1)), RateLimit.of(50, Duration.ofHours(1)));
		String shortDenial = this.keys.denial("short-key", limits);
		String longDenial = this.keys.denial(longKey, limits);
		// a 10 KB API key costs the denial cache and the local fallback what a short one does, give or take
		// its 64-digit hash
		assertThat(longDenial.length()).isLessThan(shortDenial.length() + 70);
		assertThat(RateLimitKeys.local(Algorithm.GCRA, longKey).length()).isLessThan(80);
		assertThat(this.keys.denialPrefix(longKey)).hasSizeLessThan(80);
		assertThat(longDenial).startsWith(this.keys.denialPrefix(longKey));
		// still one key per id
		assertThat(this.keys.denial(longKey + "x", limits)).isNotEqualTo(longDenial);
		assertThat(RateLimitKeys.local(Algorithm.GCRA, longKey)).isNotEqualTo(RateLimitKeys.local(Algorithm.GCRA,
				longKey + "x"));
	}

}
