package dev.ratelimit.rules.internal;

import dev.ratelimit.rules.flow.ClientAddressResolver;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.ForwardedHeader;
import dev.ratelimit.rules.flow.RateLimitFlow;

/**
 * Assembles the rule engine behind a {@link RateLimitFlow}, for the auto-configuration and the engine's own tests:
 * the rules in force and the enforcer that decides under them, with the client addresses' resolver and the headers
 * (by default: no trusted proxy, and the {@code RateLimit} headers of the IETF draft only).
 *
 * @since 0.1.0
 */
public final class RateLimitEngine {

	private RateLimitEngine() {
	}

	/**
	 * Starts a flow over the rules and the enforcer that decides under them.
	 * @param rules the rules in force
	 * @param enforcer decides calls under the rules
	 * @return the builder
	 */
	public static Builder builder(RateLimitRules rules, RateLimitEnforcer enforcer) {
		return new Builder(rules, enforcer);
	}

	/**
	 * Builds a {@link RateLimitFlow}.
	 */
	public static final class Builder {

		private final RateLimitRules rules;

		private final RateLimitEnforcer enforcer;

		private @Nullable ClientAddressResolver addresses;

		private @Nullable RateLimitHeaders headers;

		private Builder(RateLimitRules rules, RateLimitEnforcer enforcer) {
			this.rules = rules;
			this.enforcer = enforcer;
		}

		/**
		 * Sets how client addresses are read and which proxies are trusted.
		 * @param addresses the resolver
		 * @return this builder
		 */
		public Builder addresses(ClientAddressResolver addresses) {
			this.addresses = addresses;
			return this;
		}

		/**
		 * Sets which rate-limit headers are written.
		 * @param headers the headers
		 * @return this builder
		 */
		public Builder headers(RateLimitHeaders headers) {
			this.headers = headers;
			return this;
		}

		/**
		 * Builds the flow.
		 * @return the flow
		 */
		public RateLimitFlow build() {
			ClientAddressResolver addresses = (this.addresses != null) ? this.addresses
					: new TrustedProxies(List.of(), ForwardedHeader.X_FORWARDED_FOR);
			RateLimitHeaders headers = (this.headers != null) ? this.headers : new RateLimitHeaders(true, false);
			return new EngineFlow(this.rules, this.enforcer, addresses, headers);
		}

	}

}
