package dev.ratelimit.rules.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.ratelimit.rules.flow.LogThrottle;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.RateLimitSlot;
import dev.ratelimit.RateLimiterTimeoutException;
import dev.ratelimit.RateLimiterTimeoutException.Culprit;
import dev.ratelimit.rules.RateLimitRule;

/**
 * The log lines of the {@link RateLimitEnforcer}, under its name: refusals at DEBUG with a fingerprint of
 * the key (never the key), and what may repeat with every request at most once a minute.
 */
final class EnforcerLogs {

	private static final Log logger = LogFactory.getLog(RateLimitEnforcer.class);

	private final FailureMode failureMode;

	private final ConcurrentMap<String, LogThrottle> shadow = new ConcurrentHashMap<>();

	private final LogThrottle unexpected = new LogThrottle();

	private final LogThrottle unreadableKeys = new LogThrottle();

	private final LogThrottle slots = new LogThrottle();

	private final LogThrottle costs = new LogThrottle();

	/** Timeouts, by whose lateness ({@link Culprit#ordinal()}): an operator reads which it was. */
	private final LogThrottle[] timeouts = { new LogThrottle(), new LogThrottle() };

	EnforcerLogs(FailureMode failureMode) {
		this.failureMode = failureMode;
	}

	void rejected(Supplier<String> request, RateLimitRule rule, String budgetId) {
		if (logger.isDebugEnabled()) {
			logger.debug("Rejected " + request.get() + " by rule '" + rule.name() + "' for key "
					+ RateLimitKeys.fingerprint(budgetId));
		}
	}

	void unreadableKey(RateLimitRule rule, RuntimeException ex) {
		long others = this.unreadableKeys.tryLog();
		if (others >= 0) {
			logger.warn("The key of rate-limit rule '" + rule.name() + "' (" + rule.key() + ") could not be read"
					+ ((others > 0) ? " (and " + others + " more times in the last minute)" : "")
					+ "; the request was charged under its client address", ex);
		}
	}

	void unexpected(RuntimeException ex) {
		if (this.unexpected.tryLog() >= 0) {
			logger.warn("The rate limiter failed unexpectedly; the request met ratelimit.failure-mode="
					+ this.failureMode.id() + " (logged at most once a minute)", ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("The rate limiter failed unexpectedly", ex);
		}
	}

	/**
	 * A decision Redis did not answer in time: says whose lateness it was, so that an operator under load can tell
	 * a slow Redis from a starved application, and what the request met.
	 */
	void timedOut(RateLimiterTimeoutException ex) {
		Culprit culprit = ex.culprit();
		long others = this.timeouts[culprit.ordinal()].tryLog();
		if (others < 0) {
			return;
		}
		String repeated = (others > 0) ? " (and " + others + " more in the last minute)" : "";
		if (culprit == Culprit.REDIS) {
			logger.warn("A rate-limit decision timed out because Redis was late (cause=redis)" + repeated
					+ "; the request met ratelimit.failure-mode=" + this.failureMode.id()
					+ ". Redis did not answer within ratelimit.timeout, not counting the time this application's threads"
					+ " waited for a CPU: " + ex.getMessage());
		}
		else {
			logger.warn("A rate-limit decision timed out because this application was kept from a CPU (cause=client)"
					+ repeated + "; the request met ratelimit.failure-mode=" + this.failureMode.id()
					+ ". Its threads waited for a CPU for longer than a decision is given (ten times ratelimit.timeout, at"
					+ " least a second); ratelimit.failure-mode=local keeps limits per instance meanwhile: "
					+ ex.getMessage());
		}
	}

	void shadowRejection(RateLimitRule rule, String budgetId) {
		long others = this.shadow.computeIfAbsent(rule.name(), (name) -> new LogThrottle()).tryLog();
		if (others >= 0) {
			logger.info("Shadow rule '" + rule.name() + "' would have refused a request for key "
					+ RateLimitKeys.fingerprint(budgetId) + ((others > 0) ? " (and " + others + " more in the last minute)"
							: "")
					+ "; it was let through");
		}
	}

	void slotLost(RateLimitSlot slot) {
		long others = this.slots.tryLog();
		if (others >= 0) {
			logger.warn("A request in flight for key " + RateLimitKeys.fingerprint(slot.key()) + " lost its slot: its lease ("
					+ slot.lease() + ") ended before Redis answered a renewal; the renewal took the slot back, past the "
					+ "limit if another request had its place meanwhile, and no new request starts until the key is under "
					+ "its limit again" + ((others > 0) ? " (and " + others + " more in the last minute)" : "")
					+ "; a longer concurrency-lease tolerates longer pauses");
		}
	}

	void slotNotRenewed(RuntimeException ex) {
		long others = this.slots.tryLog();
		if (others >= 0) {
			logger.warn("A request's slot in flight could not be renewed"
					+ ((others > 0) ? " (and " + others + " more in the last minute)" : "")
					+ "; it is tried again, and the slot comes back by itself when its lease ends: " + ex);
		}
	}

	void noActualCost(RateLimitRule rule) {
		long others = this.costs.tryLog();
		if (others >= 0) {
			logger.warn("A response of rate-limit rule '" + rule.name() + "' told no actual cost (" + rule.costFrom()
					+ ": missing, or no whole number from 0 to " + dev.ratelimit.RateLimiter.MAX_COST + ")"
					+ ((others > 0) ? " (and " + others + " more in the last minute)" : "") + "; its reserved cost of "
					+ rule.cost() + " stands");
		}
	}

}
