package dev.ratelimit.rules.flow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RateLimitCall#keyOf}, the one reader of the keys that are neither the client address nor a header: each
 * kind of key asks the part of the call that holds it, and what the call throws comes back as a failed stage.
 */
class RateLimitCallTests {

	@Test
	void eachKindOfKeyAsksThePartOfTheCallThatHoldsIt() {
		Call call = new Call();
		assertThat(value(call, new RuleKey.Param("tenant"))).isEqualTo("parameter tenant");
		assertThat(value(call, new RuleKey.Principal())).isEqualTo("principal");
		assertThat(value(call, new RuleKey.Bean("byCustomer"))).isEqualTo("resolved bean:byCustomer");
		assertThat(value(call, new RuleKey.Resolver())).isEqualTo("resolved resolver");
		assertThat(value(call, new RuleKey.Expression("#order.customerId"))).isEqualTo("resolved #order.customerId");
		assertThat(call.asked).containsExactly("parameter", "principal", "resolveKey", "resolveKey", "resolveKey");
	}

	@Test
	void whatTheCallThrowsIsAFailedStage() {
		Call call = new Call();
		call.failure = new IllegalArgumentException("malformed query string");
		CompletionStage<@Nullable String> read = RateLimitCall.keyOf(call, rule(new RuleKey.Param("tenant")));
		assertThatThrownBy(() -> read.toCompletableFuture().join()).isInstanceOf(CompletionException.class)
			.hasCauseReference(call.failure);
	}

	@Test
	void aCallThatReadsNoParameterPrincipalOrResolverHasNoneOrSaysWhichKeyItCannotSupply() {
		RateLimitCall call = new TestCall("call of Orders.place(..)");
		assertThat(value(call, new RuleKey.Param("tenant"))).isNull();
		assertThat(value(call, new RuleKey.Principal())).isNull();
		assertThatThrownBy(() -> value(call, new RuleKey.Bean("byCustomer"))).hasCauseInstanceOf(IllegalStateException.class)
			.hasMessageContaining("Rate-limit rule 'orders' has a key (bean:byCustomer) that a call of Orders.place(..) cannot supply");
	}

	private static @Nullable String value(RateLimitCall call, RuleKey key) {
		return RateLimitCall.keyOf(call, rule(key)).toCompletableFuture().join();
	}

	private static RateLimitRule rule(RuleKey key) {
		return RateLimitRule.builder("orders", List.of(RateLimit.of(10, Duration.ofMinutes(1))), Algorithm.FIXED_WINDOW,
				key, "test").build();
	}

	/** A call that names what it is asked for, and throws {@link #failure} when set. */
	private static final class Call extends TestCall {

		private final List<String> asked = new ArrayList<>();

		private @Nullable RuntimeException failure;

		Call() {
			super("test call");
		}

		@Override
		public CompletionStage<@Nullable String> parameter(String name) {
			return answer("parameter", "parameter " + name);
		}

		@Override
		public CompletionStage<@Nullable String> principal() {
			return answer("principal", "principal");
		}

		@Override
		public CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
			return answer("resolveKey", "resolved " + rule.key().spelling());
		}

		private CompletionStage<@Nullable String> answer(String part, String value) {
			this.asked.add(part);
			RuntimeException failure = this.failure;
			if (failure != null) {
				throw failure;
			}
			return CompletableFuture.completedFuture(value);
		}

	}

}
