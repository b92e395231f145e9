package dev.ratelimit.client;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import dev.ratelimit.BlockingRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitCall;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.RateLimitRule;

/**
 * A partner's limit on the calls this application makes to it ({@code ratelimit.clients.<name>.*}): the calls it
 * covers, the rule that decides them on the shared flow (one budget for every instance), how long a call may wait for
 * a permit, and what the partner's own answers teach it.
 */
final class PartnerBudget {

	private static final Log logger = LogFactory.getLog(PartnerBudget.class);

	private final String name;

	private final List<CallPattern> calls;

	private final RateLimitRule rule;

	private final List<RateLimitRule> rules;

	private final long maxWaitNanos;

	private final boolean learn;

	private final Duration maxLearnedBlock;

	private final RateLimitFlow flow;

	private final RateLimiter limiter;

	private final ClientMetrics metrics;

	private final Clock clock;

	private final String budgetId;

	PartnerBudget(String name, List<CallPattern> calls, RateLimitRule rule, Duration maxWait, boolean learn,
			Duration maxLearnedBlock, RateLimitFlow flow, RateLimiter limiter, ClientMetrics metrics, Clock clock) {
		this.name = name;
		this.calls = List.copyOf(calls);
		this.rule = rule;
		this.rules = List.of(rule);
		this.maxWaitNanos = maxWait.toNanos();
		this.learn = learn;
		this.maxLearnedBlock = maxLearnedBlock;
		this.flow = flow;
		this.limiter = limiter;
		this.metrics = metrics;
		this.clock = clock;
		this.budgetId = rule.budgetId(name, RateLimitCall.NO_CLIENT);
	}

	/**
	 * Returns the partner's name.
	 * @return the name of {@code ratelimit.clients.<name>}
	 */
	String name() {
		return this.name;
	}

	/**
	 * Returns whether the partner's answers block the budget ({@code learn-from-responses}).
	 * @return {@code true} when they do
	 */
	boolean learns() {
		return this.learn;
	}

	/**
	 * Returns the rule that decides the partner's calls.
	 * @return the rule
	 */
	RateLimitRule rule() {
		return this.rule;
	}

	/**
	 * Returns whether the budget covers a call.
	 * @param call the call's URL or gRPC method, normalised
	 * @return {@code true} when one of its patterns matches
	 */
	boolean covers(PartnerCall call) {
		for (CallPattern pattern : this.calls) {
			if (pattern.matches(call)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Takes a permit for a call, waiting for one up to {@code max-wait} (the thread sleeps for the wait Redis tells,
	 * no polling).
	 * @param call the call, normalised
	 * @throws RateLimitExceededException when no permit comes within {@code max-wait}
	 * @throws RateLimiterUnavailableException when no decision can be reached under {@code fail-closed}
	 */
	void take(PartnerCall call) {
		long deadline = System.nanoTime() + this.maxWaitNanos;
		boolean waited = false;
		while (true) {
			ClientExchange exchange = new ClientExchange(this.name, call, true);
			if (this.flow.apply(exchange, this.rules).join()) {
				return;
			}
			RateLimitRejection rejection = exchange.rejection();
			Duration wait = waitFor(rejection, deadline, waited);
			waited = true;
			if (wait == null) {
				throw refusal(rejection, exchange);
			}
			try {
				TimeUnit.NANOSECONDS.sleep(wait.toNanos());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw refusal(rejection, exchange);
			}
		}
	}

	/**
	 * Takes a permit for a call as {@link #take} does, without holding a thread while Redis answers or while it
	 * waits (a timer asks again).
	 * @param call the call, normalised
	 * @return completes when the permit is taken; fails as {@link #take} throws
	 */
	CompletableFuture<Void> takeAsync(PartnerCall call) {
		return attempt(call, System.nanoTime() + this.maxWaitNanos, false);
	}

	private CompletableFuture<Void> attempt(PartnerCall call, long deadline, boolean waited) {
		ClientExchange exchange = new ClientExchange(this.name, call, false);
		// the decision may complete on Redis's I/O thread, which every other decision waits on: go on elsewhere
		return this.flow.apply(exchange, this.rules).thenComposeAsync((allowed) -> {
			if (allowed) {
				return CompletableFuture.completedFuture(null);
			}
			RateLimitRejection rejection = exchange.rejection();
			Duration wait = waitFor(rejection, deadline, waited);
			if (wait == null) {
				return CompletableFuture.failedFuture(refusal(rejection, exchange));
			}
			Executor later = CompletableFuture.delayedExecutor(wait.toNanos(), TimeUnit.NANOSECONDS);
			return CompletableFuture.runAsync(() -> {
			}, later).thenCompose((ignored) -> attempt(call, deadline, true));
		});
	}

	/**
	 * Returns how long to wait before asking again; {@code null} (counted as given up when the limits refused) when
	 * the permit would come after the deadline, or never. A call's first wait is counted.
	 */
	private @Nullable Duration waitFor(@Nullable RateLimitRejection rejection, long deadline, boolean waited) {
		if (!(rejection instanceof RateLimitRejection.Limited limited)) {
			return null;
		}
		Duration wait = Duration.ofMillis(1);
		for (AppliedLimit limit : limited.violated()) {
			Duration retryAfter = limit.decision().retryAfter();
			if (retryAfter.compareTo(wait) > 0) {
				wait = retryAfter;
			}
		}
		if (System.nanoTime() + wait.toNanos() - deadline > 0) {
			this.metrics.gaveUp(this.name);
			return null;
		}
		if (!waited) {
			this.metrics.waited(this.name);
		}
		return wait;
	}

	private RuntimeException refusal(@Nullable RateLimitRejection rejection, ClientExchange exchange) {
		if (rejection instanceof RateLimitRejection.Limited limited) {
			return new RateLimitExceededException(this.rule.name(), limited.violated()
				.stream()
				.map((limit) -> new RateLimitExceededException.Refusal(limit.policy(), limit.limit(), limit.decision()))
				.toList());
		}
		if (rejection instanceof RateLimitRejection.Unavailable) {
			return new RateLimiterUnavailableException("No rate-limit decision could be reached for the "
					+ exchange.describe() + " (ratelimit.clients." + this.name + "), and ratelimit.failure-mode is "
					+ "fail-closed: the call was not made", null);
		}
		return new IllegalStateException("The " + exchange.describe() + " was refused: " + rejection);
	}

	/**
	 * Learns from the partner's answer to a call: when it asks to be left alone for a while (a {@code 429} or
	 * {@code 503} with {@code Retry-After}, or a {@code RateLimit} header with {@code r=0}), the budget is blocked for
	 * that long on every instance, so that no call reaches the partner before it allows. Failures are logged.
	 * @param status the answer's status
	 * @param headers its headers
	 */
	void learn(int status, HttpHeaders headers) {
		learned(Integer.toString(status), waitAskedFor(status, headers));
	}

	/**
	 * Learns what a partner's answer asked for, read by the caller ({@link #learn} for HTTP, the gRPC client
	 * interceptor for a {@code RESOURCE_EXHAUSTED} with {@code RetryInfo}): the budget is blocked on every instance for
	 * that long, at most {@code max-learned-block}, unless the budget learns nothing. Failures are logged.
	 * @param status the answer's status, for the metrics and the log: an HTTP status code or a gRPC status's name
	 * @param wait how long the partner asks to be left alone, {@code null} when it asks for nothing
	 */
	void learned(String status, @Nullable Duration wait) {
		if (this.learn && wait != null) {
			block(status, wait);
		}
	}

	/**
	 * Returns how long an HTTP answer of the partner asks to be left alone, when the budget learns from answers.
	 * @param status the answer's status
	 * @param headers its headers
	 * @return the wait, {@code null} when it asks for none or the budget learns nothing
	 */
	@Nullable Duration waitAskedFor(int status, HttpHeaders headers) {
		return this.learn ? PartnerAnswers.waitAskedFor(status, headers, this.clock.instant()) : null;
	}

	private void block(String status, Duration wait) {
		this.metrics.partnerRefused(this.name, status);
		Duration length = wait;
		if (wait.compareTo(this.maxLearnedBlock) > 0) {
			// a partner (or a proxy in between) that asks for hours would otherwise stop every instance that long
			logger.warn("Partner '" + this.name + "' asked for " + wait.toSeconds() + " s without calls (status " + status
					+ "); the budget is blocked for ratelimit.clients." + this.name + ".max-learned-block ("
					+ RateLimit.label(this.maxLearnedBlock) + ")");
			length = this.maxLearnedBlock;
		}
		try {
			((BlockingRateLimiter) this.limiter).block(this.budgetId, length);
		}
		catch (RuntimeException ex) {
			logger.warn("Partner '" + this.name + "' asked for " + length.toMillis() + " ms without calls (status "
					+ status + "), but its budget could not be blocked: " + ex.getMessage());
		}
	}

}
