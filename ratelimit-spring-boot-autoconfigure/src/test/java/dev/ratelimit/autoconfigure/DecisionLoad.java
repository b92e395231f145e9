package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;

import org.awaitility.core.ConditionTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Paced calls to limiters from several threads while a test breaks Redis, each outcome recorded with
 * the time it ended, and the timeline of the failures they met. Paced, so that the fast failures of an
 * open circuit breaker do not starve the Redis servers of CPU.
 */
final class DecisionLoad {

	/** A limit no call in a load test reaches (a few hundred calls per client): every decision made allows. */
	static final RateLimit GENEROUS = RateLimit.of(Algorithm.MAX_SLIDING_WINDOW_LOG_LIMIT, Duration.ofMinutes(1));

	private static final Duration PACE = Duration.ofMillis(2);

	private final List<Call> calls;

	private final int threads;

	private final ScheduledExecutorService executor;

	private final AtomicInteger next = new AtomicInteger();

	private final AtomicInteger decidedInARowOnWatched = new AtomicInteger();

	private final ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();

	private volatile long brokenAt;

	private volatile long takenOverAt;

	private DecisionLoad(List<Call> calls, int threads) {
		this.calls = calls;
		this.threads = threads;
		this.executor = Executors.newScheduledThreadPool(threads);
	}

	/**
	 * Warms the limiters up (a connection to every server, every script loaded), calls them from
	 * {@code threads} threads, each every {@link #PACE}, runs {@code outage} once 500 calls ended, and
	 * waits until {@code takeover} holds and the watched calls, having failed, were decided 200 times
	 * in a row; then stops calling.
	 * @param calls what to call, round and round
	 * @param threads how many threads call
	 * @param outage breaks Redis, for example stops a master
	 * @param takeover whether another server took over, for example the replica became master
	 * @return the finished load, with its samples and timeline
	 */
	static DecisionLoad throughOutage(List<Call> calls, int threads, Runnable outage, BooleanSupplier takeover) {
		// a connection to every server and every script loaded, within the 200 ms timeout of each call: on a loaded
		// machine that took over 10 s (two CI runs at once)
		await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> calls.stream().allMatch((call) -> call.run().failure() == null));
		DecisionLoad load = new DecisionLoad(calls, threads);
		for (int i = 0; i < threads; i++) {
			load.executor.scheduleAtFixedRate(load::callNext, 0, PACE.toNanos(), TimeUnit.NANOSECONDS);
		}
		try {
			// a bound for a loaded machine, not a measure: 500 samples take well under a second on an idle one
			await().atMost(Duration.ofSeconds(30)).until(() -> load.samples.size() > 500);
			load.brokenAt = System.nanoTime();
			outage.run();
			// failover takes about 6 s here, even with both cores busy; the bound is for a machine running more than
			// one build at once (one CI run missed 30 s), and a miss says what was and was not seen
			try {
				await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50)).until(() -> {
					if (load.takenOverAt == 0 && takeover.getAsBoolean()) {
						load.takenOverAt = System.nanoTime();
					}
					return load.takenOverAt != 0 && load.recoveredAfterFailures();
				});
			}
			catch (ConditionTimeoutException ex) {
				throw new AssertionError(load.notRecovered(), ex);
			}
		}
		finally {
			load.executor.shutdown();
		}
		try {
			assertThat(load.executor.awaitTermination(10, TimeUnit.SECONDS)).as("load stopped").isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		return load;
	}

	private void callNext() {
		Call call = this.calls.get(Math.floorMod(this.next.getAndIncrement(), this.calls.size()));
		Sample sample = call.run();
		this.samples.add(sample);
		if (call.watched()) {
			if (sample.failure() == null) {
				this.decidedInARowOnWatched.incrementAndGet();
			}
			else {
				this.decidedInARowOnWatched.set(0);
			}
		}
	}

	private boolean recoveredAfterFailures() {
		return first(this.brokenAt, (sample) -> sample.call().watched() && sample.failure() != null).isPresent()
				&& this.decidedInARowOnWatched.get() >= 200;
	}

	private String notRecovered() {
		long broken = this.brokenAt;
		List<Sample> failures = this.samples.stream()
			.filter((sample) -> sample.call().watched() && sample.failure() != null)
			.sorted(Comparator.comparingLong(Sample::nanos))
			.toList();
		String lastFailures = failures.subList(Math.max(0, failures.size() - 5), failures.size())
			.stream()
			.map((sample) -> "t=" + TimeUnit.NANOSECONDS.toMillis(sample.nanos() - broken) + " ms " + sample.outcome()
					+ ": " + sample.failure().getMessage())
			.collect(Collectors.joining("; "));
		return "Not recovered: takeover " + ((this.takenOverAt != 0)
				? "seen at t=" + TimeUnit.NANOSECONDS.toMillis(this.takenOverAt - broken) + " ms" : "never seen")
				+ ", " + this.decidedInARowOnWatched.get() + " watched calls decided in a row (200 wanted), "
				+ failures.size() + " watched calls failed, the last: " + lastFailures;
	}

	/**
	 * Returns every call's outcome.
	 * @return the outcomes, in no particular order
	 */
	List<Sample> samples() {
		return List.copyOf(this.samples);
	}

	/**
	 * Prints when the watched calls and the others failed and recovered, relative to the outage, and
	 * when the takeover was seen, and the count of each outcome.
	 * @param label the first word of every line
	 * @param outage what the outage was
	 * @param takeover what the takeover was
	 */
	void printTimeline(String label, String outage, String takeover) {
		long broken = this.brokenAt;
		Predicate<Sample> watched = (sample) -> sample.call().watched();
		long lastFailure = last((sample) -> watched.test(sample) && sample.failure() != null).orElse(broken);
		Map<String, OptionalLong> timeline = new LinkedHashMap<>();
		timeline.put("first failed call on its keys", first(broken, (sample) -> watched.test(sample) && sample.failure() != null));
		if (this.samples.stream().anyMatch(watched.negate())) {
			timeline.put("first failed call on other keys",
					first(broken, (sample) -> !watched.test(sample) && sample.failure() != null));
		}
		timeline.put(takeover, OptionalLong.of(this.takenOverAt));
		timeline.put("last failed call on its keys", OptionalLong.of(lastFailure));
		timeline.put("first decision on its keys after that",
				first(lastFailure + 1, (sample) -> watched.test(sample) && sample.failure() == null));
		System.out.printf("%s: %d threads, a call every %d ms each, %d calls; %s at t=0 ms%n", label, this.threads,
				PACE.toMillis(), this.samples.size(), outage);
		timeline.forEach((name, nanos) -> System.out.printf("%s:   t=%6s ms  %s%n", label,
				nanos.isPresent() ? Long.toString(TimeUnit.NANOSECONDS.toMillis(nanos.getAsLong() - broken)) : "-",
				name));
		System.out.printf("%s:   outcomes on its keys %s%n", label, outcomes(watched));
		if (this.samples.stream().anyMatch(watched.negate())) {
			System.out.printf("%s:   outcomes on other keys %s%n", label, outcomes(watched.negate()));
		}
	}

	private OptionalLong first(long since, Predicate<Sample> filter) {
		return this.samples.stream().filter((sample) -> sample.nanos() >= since).filter(filter).mapToLong(Sample::nanos).min();
	}

	private OptionalLong last(Predicate<Sample> filter) {
		return this.samples.stream().filter(filter).mapToLong(Sample::nanos).max();
	}

	private Map<String, Long> outcomes(Predicate<Sample> filter) {
		return new TreeMap<>(this.samples.stream()
			.filter(filter)
			.collect(Collectors.groupingBy(Sample::outcome, Collectors.counting())));
	}

	/**
	 * One limiter called for one id under {@link #GENEROUS}.
	 * @param limiter the limiter
	 * @param id the id
	 * @param watched whether the id's key is on the server the test breaks
	 */
	record Call(RateLimiter limiter, String id, boolean watched) {

		Sample run() {
			try {
				boolean allowed = this.limiter.tryAcquire(this.id, GENEROUS).allowed();
				return new Sample(System.nanoTime(), this, allowed, null);
			}
			catch (RuntimeException ex) {
				return new Sample(System.nanoTime(), this, false, ex);
			}
		}

	}

	/**
	 * The outcome of one call.
	 * @param nanos when it ended, a {@link System#nanoTime()}
	 * @param call the call
	 * @param allowed whether a decision was made that allowed it
	 * @param failure what the call threw, if anything
	 */
	record Sample(long nanos, Call call, boolean allowed, @Nullable RuntimeException failure) {

		/**
		 * Returns whether the call was decided, or failed the way the failure mode expects.
		 * @return {@code true} for a decision that allowed or a {@link RateLimiterUnavailableException}
		 */
		boolean decidedOrUnavailable() {
			return (this.failure == null) ? this.allowed : this.failure instanceof RateLimiterUnavailableException;
		}

		String outcome() {
			if (this.failure == null) {
				return this.allowed ? "allowed" : "refused";
			}
			Throwable cause = this.failure.getCause();
			return this.failure.getClass().getSimpleName() + "("
					+ ((cause != null) ? cause.getClass().getSimpleName() : "breaker open") + ")";
		}

	}

}
