package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The parts of {@link LettuceScriptRunner}, each without Redis: a batch's keys and shared arguments, the
 * lanes calls wait in, and the runner's own timeouts.
 */
class ScriptRunnerPartsTests {

	private static final RedisScript<List> FIXED = RedisScripts.of(Algorithm.FIXED_WINDOW).script();

	private static final RedisScript<List> BUCKET = RedisScripts.of(Algorithm.TOKEN_BUCKET).script();

	@Test
	void aBatchCarriesEveryCallsKeysAndEachDistinctArgumentListOnce() {
		BatchCall first = call(FIXED, new String[] { "a" }, "10", "60000000");
		BatchCall second = call(BUCKET, new String[] { "b", "c" }, "5", "1000000");
		BatchCall third = call(FIXED, new String[] { "d" }, "10", "60000000");
		BatchFlight flight = new BatchFlight(new BatchLane((sent) -> {
		}), List.of(first, second, third));
		assertThat(strings(flight.keys())).containsExactly("a", "b", "c", "d");
		// the calls, each as script, key count and argument list; then the two distinct lists
		assertThat(strings(flight.args())).containsExactly("3", idx(FIXED), "1", "1", idx(BUCKET), "2", "2",
				idx(FIXED), "1", "1", "2", "2", "10", "60000000", "2", "5", "1000000");
		assertThat(first.flight).isSameAs(flight);
	}

	@Test
	void aBatchHandsEachCallItsOwnReplyOrError() {
		BatchCall first = call(FIXED, new String[] { "a" }, "1");
		BatchCall second = call(FIXED, new String[] { "b" }, "1");
		BatchFlight flight = new BatchFlight(new BatchLane((sent) -> {
		}), List.of(first, second));
		flight.settle(List.of(List.of(1L, 2L), "ERR bad limit".getBytes(StandardCharsets.UTF_8)), null);
		assertThat(first.answer.join()).isEqualTo(List.of(1L, 2L));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> second.answer.get())
			.withCauseInstanceOf(RedisSystemException.class)
			.withMessageContaining("ERR bad limit");
	}

	@Test
	void aBatchWhoseReplyDoesNotFitItsCallsFailsEveryOne() {
		BatchCall first = call(FIXED, new String[] { "a" }, "1");
		BatchCall second = call(FIXED, new String[] { "b" }, "1");
		new BatchFlight(new BatchLane((sent) -> {
		}), List.of(first, second)).settle(List.of(List.of(1L)), null);
		assertThat(first.answer).isCompletedExceptionally();
		assertThat(second.answer).isCompletedExceptionally();
	}

	@Test
	void aLaneSendsTwoFlightsAtOnceAndThenWhatWaitedTogetherSkippingCallsGivenUp() {
		List<BatchFlight> sent = new ArrayList<>();
		BatchLane lane = new BatchLane(sent::add);
		List<BatchCall> calls = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			calls.add(call(FIXED, new String[] { "k" + i }, "1"));
			lane.offer(calls.get(i));
		}
		assertThat(sent).hasSize(BatchLane.DEPTH);
		assertThat(sent.get(0).calls).containsExactly(calls.get(0));
		assertThat(sent.get(1).calls).containsExactly(calls.get(1));
		// a caller that gave up while its call waited: the call does not travel
		calls.get(3).answer.completeExceptionally(new QueryTimeoutException("gave up"));
		sent.get(0).release();
		assertThat(sent).hasSize(3);
		assertThat(sent.get(2).calls).containsExactly(calls.get(2), calls.get(4), calls.get(5));
		// a flight is released once, whoever releases it
		sent.get(0).release();
		assertThat(sent).hasSize(3);
		sent.get(1).release();
		sent.get(2).release();
		assertThat(lane.flying()).isZero();
	}

	@Test
	void aBatchCarriesAtMostItsLimitAndTheRestGoesNext() {
		List<BatchFlight> sent = new ArrayList<>();
		BatchLane lane = new BatchLane(sent::add);
		for (int i = 0; i < BatchLane.DEPTH + BatchLane.MAX_BATCH + 10; i++) {
			lane.offer(call(FIXED, new String[] { "k" + i }, "1"));
		}
		sent.get(0).release();
		assertThat(sent.get(2).calls).hasSize(BatchLane.MAX_BATCH);
		sent.get(1).release();
		assertThat(sent.get(3).calls).hasSize(10);
	}

	@Test
	void aFlightAllOfWhoseCallsGaveUpFreesItsLane() {
		List<BatchFlight> sent = new ArrayList<>();
		BatchLane lane = new BatchLane(sent::add);
		BatchCall call = call(FIXED, new String[] { "k" }, "1");
		lane.offer(call);
		call.answer.completeExceptionally(new QueryTimeoutException("late"));
		call.abandon();
		assertThat(lane.flying()).isZero();
	}

	@Test
	void aCallRedisDoesNotAnswerTimesOutAndIsAbandonedOnce() {
		Deadlines deadlines = new Deadlines(Duration.ofMillis(50), new StallClock());
		Counting call = new Counting();
		assertThatExceptionOfType(QueryTimeoutException.class)
			.isThrownBy(() -> deadlines.await(call, System.nanoTime() + deadlines.timeoutNanos(), 0))
			.withMessage("Redis did not answer within 50ms");
		assertThat(call.abandoned).hasValue(1);
	}

	@Test
	void anAnsweredCallIsNotAbandoned() {
		Deadlines deadlines = new Deadlines(Duration.ofMillis(50), new StallClock());
		Counting call = new Counting();
		call.settle(List.of(1L), null);
		assertThat(deadlines.await(call, System.nanoTime() + deadlines.timeoutNanos(), 0)).isEqualTo(List.of(1L));
		Counting failed = new Counting();
		failed.settle(null, new RedisSystemException("boom", null));
		assertThatExceptionOfType(RedisSystemException.class)
			.isThrownBy(() -> deadlines.await(failed, System.nanoTime() + deadlines.timeoutNanos(), 0))
			.withMessage("boom");
		assertThat(call.abandoned).hasValue(0);
		assertThat(failed.abandoned).hasValue(0);
	}

	@Test
	void anAsynchronousCallRedisDoesNotAnswerFailsAtItsDeadlineWithoutAThreadWaiting() throws Exception {
		Deadlines deadlines = new Deadlines(Duration.ofMillis(50), new StallClock());
		Counting late = new Counting();
		Counting answered = new Counting();
		long deadline = System.nanoTime() + deadlines.timeoutNanos();
		deadlines.expire(late, deadline, 0);
		deadlines.expire(answered, deadline, 0);
		answered.settle(List.of(1L), null);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> late.answer.get(30, TimeUnit.SECONDS))
			.withCauseInstanceOf(QueryTimeoutException.class);
		// abandoned on the timer's thread right after the answer failed (bounds for a loaded machine, not measures)
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(late.abandoned).hasValue(1));
		assertThat(answered.answer.get()).isEqualTo(List.of(1L));
		assertThat(answered.abandoned).hasValue(0);
	}

	@Test
	void withoutAKnownEventLoopNothingCountsAsStalled() {
		StallClock clock = new StallClock();
		assertThat(clock.knowsLoop()).isFalse();
		assertThat(clock.stalled()).isZero();
		CompletableFuture<String> done = CompletableFuture.completedFuture("yes");
		assertThat(clock.answeredAfterPendingReads(done, System.nanoTime(), 0, System.nanoTime())).isTrue();
		assertThat(clock.answeredAfterPendingReads(new CompletableFuture<>(), System.nanoTime(), 0, System.nanoTime()))
			.isFalse();
	}

	private static BatchCall call(RedisScript<List> script, String[] keys, String... args) {
		return new BatchCall(RedisScripts.batchIndex(script), script, ScriptCommands.bytes(Arrays.asList(keys)),
				ScriptCommands.bytes(Arrays.asList(args)), null);
	}

	private static String idx(RedisScript<List> script) {
		return Integer.toString(RedisScripts.batchIndex(script));
	}

	private static List<String> strings(byte[][] values) {
		return Arrays.stream(values).map((value) -> new String(value, StandardCharsets.UTF_8)).toList();
	}

	private static final class Counting extends PendingCall {

		final AtomicInteger abandoned = new AtomicInteger();

		Counting() {
			super(null);
		}

		@Override
		void abandon() {
			this.abandoned.incrementAndGet();
		}

	}

}
