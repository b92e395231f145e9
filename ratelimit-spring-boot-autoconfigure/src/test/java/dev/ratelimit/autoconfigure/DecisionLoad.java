package dev.ratelimit.autoconfigure;

import java.time.Duration;
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
import java.util.function.Predicate;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;

/**
 * Paced calls to limiters from several threads while a test breaks Redis, each outcome recorded with
 * the time it ended, and the timeline of the failures they met. Paced, so that the fast failures of an
 * open circuit breaker do not starve the Redis servers of CPU.
 */
final class DecisionLoad {

	/** A limit no call in a load test reaches: every decision made allows. */
	static final RateLimit GENEROUS = RateLimit.of(1_000_000, Duration.ofMinutes(1));

	private static final Duration PACE = Duration.ofMillis(2);

	private final List<Call> calls;

	private final int threads;

	private final ScheduledExecutorService executor;

	private final AtomicInteger next = new AtomicInteger();

	private final AtomicInteger decidedInARowOnWatched = new AtomicInteger();

	private final ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();

	private DecisionLoad(List<Call> calls, int threads) {
		this.calls = calls;
		this.threads = threads;
		this.executor = Executors.newScheduledThreadPool(threads);
	}

	/**
	 * Starts calling, each thread one call every {@link #PACE}, going round {@code calls}.
	 * @param calls what to call
	 * @param threads how many threads call
	 * @return the running load
	 */
	static DecisionLoad start(List<Call> calls, int threads) {
		DecisionLoad load = new DecisionLoad(calls, threads);
		for (int i = 0; i < threads; i++) {
			load.executor.scheduleAtFixedRate(load::callNext, 0, PACE.toNanos(), TimeUnit.NANOSECONDS);
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

	/**
	 * Returns how many calls have ended.
	 * @return the count
	 */
	int size() {
		return this.samples.size();
	}

	/**
	 * Returns whether the watched calls failed at least once since {@code since} and then were decided
	 * {@code count} times in a row.
	 * @param since a {@link System#nanoTime()}
	 * @param count how many decisions in a row
	 * @return {@code true} once they recovered
	 */
	boolean recoveredAfterFailures(long since, int count) {
		return first(since, (sample) -> sample.call().watched() && sample.failure() != null).isPresent()
				&& this.decidedInARowOnWatched.get() >= count;
	}

	/**
	 * Stops calling and waits for the calls under way.
	 * @return {@code true} when every thread stopped within ten seconds
	 * @throws InterruptedException when interrupted while waiting
	 */
	boolean stop() throws InterruptedException {
		this.executor.shutdown();
		return this.executor.awaitTermination(10, TimeUnit.SECONDS);
	}

	/**
	 * Returns every call's outcome.
	 * @return the outcomes, in no particular order
	 */
	List<Sample> samples() {
		return List.copyOf(this.samples);
	}

	/**
	 * Prints when the watched calls and the others failed and recovered, relative to {@code broken},
	 * with further events of the test, and the count of each outcome.
	 * @param label the first word of every line
	 * @param what what the test broke
	 * @param broken when it broke it, a {@link System#nanoTime()}
	 * @param events further events by name, each a {@link System#nanoTime()}
	 */
	void printTimeline(String label, String what, long broken, Map<String, Long> events) {
		Predicate<Sample> watched = (sample) -> sample.call().watched();
		long lastFailure = last((sample) -> watched.test(sample) && sample.failure() != null).orElse(broken);
		Map<String, OptionalLong> timeline = new LinkedHashMap<>();
		timeline.put("first failed call on its keys", first(broken, (sample) -> watched.test(sample) && sample.failure() != null));
		if (this.samples.stream().anyMatch(watched.negate())) {
			timeline.put("first failed call on other keys",
					first(broken, (sample) -> !watched.test(sample) && sample.failure() != null));
		}
		events.forEach((name, nanos) -> timeline.put(name, OptionalLong.of(nanos)));
		timeline.put("last failed call on its keys", OptionalLong.of(lastFailure));
		timeline.put("first decision on its keys after that",
				first(lastFailure + 1, (sample) -> watched.test(sample) && sample.failure() == null));
		System.out.printf("%s: %d threads, a call every %d ms each, %d calls; %s at t=0 ms%n", label, this.threads,
				PACE.toMillis(), this.samples.size(), what);
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
