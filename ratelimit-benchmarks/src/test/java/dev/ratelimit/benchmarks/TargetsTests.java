package dev.ratelimit.benchmarks;

import org.junit.jupiter.api.Test;

import dev.ratelimit.benchmarks.Targets.Target;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link Targets}, read from {@code benchmarks/targets.properties}.
 */
class TargetsTests {

	private final Targets targets = Targets.load();

	@Test
	void writesTheThresholdIntoTheWording() {
		assertThat(this.targets.get("redisson").label()).isEqualTo("… ≥ 1.5 × Redisson");
		assertThat(this.targets.get("hot-key-calls").label())
			.isEqualTo("Hot key: Redis calls refused per retry period ≤ 1 per instance (limit 10/s, cache on)");
		assertThat(this.targets.get("async").label()).isEqualTo("O(1) algorithms through the async API (`tryAcquireAsync`), one thread, "
				+ "64 decisions in flight ≥ 0.9 × the physical limit of the same script at 64 in flight");
	}

	@Test
	void comparesAValueWithTheThresholdAsTheFileSays() {
		Target atLeast = this.targets.get("physical");
		assertThat(atLeast.met(0.8)).isTrue();
		assertThat(atLeast.met(0.79)).isFalse();
		Target atMost = this.targets.get("memory-constant");
		assertThat(atMost.met(16)).isTrue();
		assertThat(atMost.met(17)).isFalse();
		Target below = this.targets.get("http");
		assertThat(below.met(0.99)).isTrue();
		assertThat(below.met(1)).isFalse();
		assertThat(below.met(Double.NaN)).isFalse();
	}

	@Test
	void hasATargetWithoutAThreshold() {
		assertThat(this.targets.get("steady.batching-p99").label()).isEqualTo("Batching: p99 no worse than without");
	}

	@Test
	void failsOnATargetTheFileDoesNotHave() {
		assertThatIllegalStateException().isThrownBy(() -> this.targets.get("nope"))
			.withMessageContaining("No target nope in benchmarks/targets.properties");
	}

}
