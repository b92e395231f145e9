package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.redis.RedisKeys;
import dev.ratelimit.web.RateLimitObserver.Outcome;

/**
 * Takes the decisions of the rules that apply to a request, whichever web stack it came through, and
 * applies the failure mode, in one place, when a decision cannot be reached: {@code fail-open} lets the
 * rule pass, {@code fail-closed} refuses the request (503), and {@code local} decides in this instance's
 * memory. A request passes only if every rule allows it; the first rule that refuses it ends the check
 * (rules after it are not charged). Shadow rules are decided and counted, never refuse. Every decision
 * is reported to the observer; nothing here fails a request on its own account.
 */
public final class RateLimitEnforcer {

	private static final Log logger = LogFactory.getLog(RateLimitEnforcer.class);

	private final RateLimitRules rules;

	private final FailureMode failureMode;

	private final @Nullable RateLimiter local;

	private final RateLimitObserver observer;

	private final ConcurrentMap<String, LogThrottle> shadowLogs = new ConcurrentHashMap<>();

	private final LogThrottle unexpectedLog = new LogThrottle();

	private final LogThrottle keyFailureLog = new LogThrottle();

	/**
	 * Creates an enforcer.
	 * @param rules the rules and their limiters
	 * @param failureMode what a request meets when a decision cannot be reached
	 * @param local the in-memory limiter of the {@code local} failure mode, or {@code null} in the others
	 * @param observer learns of every decision, for metrics
	 */
	public RateLimitEnforcer(RateLimitRules rules, FailureMode failureMode, @Nullable RateLimiter local,
			RateLimitObserver observer) {
		this.rules = rules;
		this.failureMode = failureMode;
		this.local = local;
		this.observer = observer;
	}

	/**
	 * Decides a request under the rules that apply to it, charging each rule's budget.
	 * @param request describes the request for debug logs, such as {@code GET /api/orders}
	 * @param applicable the rules that apply, in order
	 * @param keys reads the request's keys
	 * @return the verdict
	 */
	public RateLimitVerdict enforce(Supplier<String> request, List<RateLimitRule> applicable, RequestKeys keys) {
		List<AppliedLimit> applied = new ArrayList<>(applicable.size());
		for (RateLimitRule rule : applicable) {
			RateLimitObserver.Decision observed = start(rule);
			long started = System.nanoTime();
			String budgetId = budgetId(rule, keys);
			if (budgetId == null) {
				end(observed, Outcome.MISSING_KEY, System.nanoTime() - started);
				if (rule.missingKey() == MissingKey.SKIP) {
					continue;
				}
				return new RateLimitVerdict(applied, List.of(), false, rule);
			}
			List<RateLimitDecision> decisions;
			try {
				decisions = this.rules.limiter(rule).tryAcquire(budgetId, rule.limits(), rule.cost());
			}
			catch (RuntimeException ex) {
				if (!(ex instanceof RateLimiterUnavailableException)) {
					logUnexpected(ex);
				}
				decisions = onFailure(rule, budgetId);
				if (decisions == null) {
					end(observed, Outcome.ERROR, System.nanoTime() - started);
					// a rule in shadow mode never refuses, not even with 503
					if (this.failureMode == FailureMode.FAIL_CLOSED && !rule.shadow()) {
						return new RateLimitVerdict(applied, List.of(), true, null);
					}
					continue;
				}
			}
			long nanos = System.nanoTime() - started;
			List<AppliedLimit> violated = new ArrayList<>(0);
			for (int i = 0; i < decisions.size(); i++) {
				AppliedLimit limit = new AppliedLimit(rule.policyName(i), rule.limits().get(i), decisions.get(i));
				applied.add(limit);
				if (!limit.decision().allowed()) {
					violated.add(limit);
				}
			}
			if (violated.isEmpty()) {
				end(observed, Outcome.ALLOWED, nanos);
			}
			else if (rule.shadow()) {
				end(observed, Outcome.SHADOW_REJECTED, nanos);
				logShadowRejection(rule, budgetId);
			}
			else {
				end(observed, Outcome.REJECTED, nanos);
				if (logger.isDebugEnabled()) {
					logger.debug("Rejected " + request.get() + " by rule '" + rule.name() + "' for key "
							+ RedisKeys.fingerprint(budgetId));
				}
				return new RateLimitVerdict(applied, violated, false, null);
			}
		}
		return new RateLimitVerdict(applied, List.of(), false, null);
	}

	/**
	 * Applies the failure mode to a rule whose decision could not be reached.
	 * @return the decisions taken instead, or {@code null} when the rule takes none: it passes, or in
	 * {@code fail-closed} it refuses the request
	 */
	private @Nullable List<RateLimitDecision> onFailure(RateLimitRule rule, String budgetId) {
		return switch (this.failureMode) {
			case LOCAL -> (this.local != null)
					? this.local.tryAcquire(RedisKeys.fallback(rule.algorithm(), budgetId), rule.limits(), rule.cost()) : null;
			case FAIL_OPEN, FAIL_CLOSED -> null;
		};
	}

	/**
	 * Returns the budget a request charges under a rule. A request without the key's value is charged
	 * under its client address, or (as the rule says) skips the rule or is refused: then {@code null}.
	 * One whose key cannot be read (a key resolver that throws, a query string the server cannot parse)
	 * is charged under its client address whatever the rule says, so that no request goes unlimited
	 * for it.
	 */
	private @Nullable String budgetId(RateLimitRule rule, RequestKeys keys) {
		String value;
		try {
			value = keys.keyValue(rule);
		}
		catch (RuntimeException ex) {
			long others = this.keyFailureLog.tryLog();
			if (others >= 0) {
				logger.warn("The key of rate-limit rule '" + rule.name() + "' (" + rule.key() + ") could not be read"
						+ ((others > 0) ? " (and " + others + " more times in the last minute)" : "")
						+ "; the request was charged under its client address", ex);
			}
			return rule.budgetId(null, keys.clientAddress());
		}
		if ((value == null || value.isBlank()) && rule.missingKey() != MissingKey.CLIENT_ADDRESS) {
			return null;
		}
		return rule.budgetId(value, keys.clientAddress());
	}

	private RateLimitObserver.Decision start(RateLimitRule rule) {
		try {
			return this.observer.start(rule);
		}
		catch (RuntimeException ex) {
			// metrics and traces must never fail a request
			logUnexpected(ex);
			return (outcome, nanos) -> {
			};
		}
	}

	private void end(RateLimitObserver.Decision decision, Outcome outcome, long nanos) {
		try {
			decision.end(outcome, nanos);
		}
		catch (RuntimeException ex) {
			logUnexpected(ex);
		}
	}

	private void logUnexpected(RuntimeException ex) {
		if (this.unexpectedLog.tryLog() >= 0) {
			logger.warn("The rate limiter failed unexpectedly; the request met ratelimit.failure-mode="
					+ this.failureMode.id() + " (logged at most once a minute)", ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("The rate limiter failed unexpectedly", ex);
		}
	}

	private void logShadowRejection(RateLimitRule rule, String budgetId) {
		long others = this.shadowLogs.computeIfAbsent(rule.name(), (name) -> new LogThrottle()).tryLog();
		if (others >= 0) {
			logger.info("Shadow rule '" + rule.name() + "' would have refused a request for key "
					+ RedisKeys.fingerprint(budgetId) + ((others > 0) ? " (and " + others + " more in the last minute)"
							: "")
					+ "; it was let through");
		}
	}

	/**
	 * Reads the keys of one request, as its web stack holds them.
	 */
	public interface RequestKeys {

		/**
		 * Returns the value of a rule's key in the request: its client address, a header's or a
		 * parameter's value, its principal's name, what a key-resolver bean returns.
		 * @param rule the rule
		 * @return the value, or {@code null} (or blank) when the request has none
		 */
		@Nullable String keyValue(RateLimitRule rule);

		/**
		 * Returns the request's client address.
		 * @return the address
		 */
		String clientAddress();

	}

}
