package dev.ratelimit.redis;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimited;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimiterRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	@Test
	void isRegisteredForAheadOfTimeBuilds() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(RateLimiterRuntimeHints.class);
	}

	@Test
	void coversEveryScriptOnTheClassPath() throws IOException {
		new RateLimiterRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
		Resource[] scripts = new PathMatchingResourcePatternResolver().getResources("classpath*:" + RateLimiterRuntimeHints.SCRIPTS);
		List<String> names = Arrays.stream(scripts).map(Resource::getFilename).toList();
		// one per algorithm, the prelude, the reset, refund, charge, together, batch, block, concurrency, slot and
		// overrides' scripts: a new script is found here without editing the test
		assertThat(names).hasSize(Algorithm.values().length + 12)
			.contains("prelude.lua", "reset.lua", "refund.lua", "charge.lua", "together.lua", "batch.lua", "block.lua",
					"block-state.lua", "concurrency.lua", "slot.lua", "override.lua", "overrides.lua");
		for (String name : names) {
			assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/ratelimit/scripts/" + name))
				.as(name)
				.accepts(this.hints);
		}
	}

	@Test
	void coversTheScriptsTheLimitersLoad() {
		new RateLimiterRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
		for (String script : List.of("prelude", "fixed-window", "sliding-window-log", "sliding-window-counter",
				"token-bucket", "gcra", "reset", "refund", "charge", "together", "batch", "block", "block-state",
				"concurrency", "slot")) {
			assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/ratelimit/scripts/" + script + ".lua"))
				.as(script)
				.accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/ratelimit/other.txt")).rejects(this.hints);
	}

	@Test
	void letsTheAnnotationsBeReadReflectively() {
		new RateLimiterRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
		for (Class<?> annotation : List.of(RateLimited.class, RateLimited.List.class, RateLimited.Limit.class, RateLimited.Plan.class)) {
			assertThat(RuntimeHintsPredicates.reflection()
				.onType(annotation)
				.withMemberCategory(MemberCategory.INVOKE_DECLARED_METHODS)).as(annotation.getName()).accepts(this.hints);
		}
	}

}
