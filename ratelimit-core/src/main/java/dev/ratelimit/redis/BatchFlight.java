package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisSystemException;

/**
 * The calls one command carries, and the lane it holds until it is answered: a call alone goes as its
 * own script, several as one {@link RedisScripts#BATCH}, whose keys and arguments this builds.
 */
final class BatchFlight {

	/** The decimal digits of small numbers, as a batch's arguments take them. */
	private static final byte[][] NUMBERS = new byte[1024][];

	static {
		for (int i = 0; i < NUMBERS.length; i++) {
			NUMBERS[i] = Integer.toString(i).getBytes(StandardCharsets.US_ASCII);
		}
	}

	private final BatchLane lane;

	final List<BatchCall> calls;

	private final AtomicBoolean released = new AtomicBoolean();

	BatchFlight(BatchLane lane, List<BatchCall> calls) {
		this.lane = lane;
		this.calls = calls;
		for (BatchCall call : calls) {
			call.flight = this;
		}
	}

	/** Lets the lane send what waited; once per flight, whatever calls it. */
	void release() {
		if (this.released.compareAndSet(false, true)) {
			this.lane.next();
		}
	}

	void fail(RuntimeException failure) {
		release();
		for (BatchCall call : this.calls) {
			call.answer.completeExceptionally(failure);
		}
	}

	/** The batch's keys: every call's, in order. */
	byte[][] keys() {
		int count = 0;
		for (BatchCall call : this.calls) {
			count += call.keys.length;
		}
		byte[][] keys = new byte[count][];
		int at = 0;
		for (BatchCall call : this.calls) {
			System.arraycopy(call.keys, 0, keys, at, call.keys.length);
			at += call.keys.length;
		}
		return keys;
	}

	/**
	 * The batch's arguments (see {@code batch.lua}): the number of calls, each call's script, key count
	 * and argument list, then the distinct argument lists, each once: calls under one rule on the
	 * server's clock send the same arguments, and Redis then parses them once per batch.
	 */
	byte[][] args() {
		int n = this.calls.size();
		List<byte[][]> lists = new ArrayList<>();
		int[] listOf = new int[n];
		int count = 2 + 3 * n;
		for (int c = 0; c < n; c++) {
			byte[][] own = this.calls.get(c).args;
			int list = lists.size();
			for (int j = 0; j < lists.size(); j++) {
				if (Arrays.deepEquals(lists.get(j), own)) {
					list = j;
					break;
				}
			}
			if (list == lists.size()) {
				lists.add(own);
				count += 1 + own.length;
			}
			listOf[c] = list;
		}
		byte[][] args = new byte[count][];
		args[0] = number(n);
		for (int c = 0; c < n; c++) {
			BatchCall call = this.calls.get(c);
			args[1 + 3 * c] = number(call.index);
			args[2 + 3 * c] = number(call.keys.length);
			args[3 + 3 * c] = number(listOf[c] + 1);
		}
		int at = 1 + 3 * n;
		args[at++] = number(lists.size());
		for (byte[][] list : lists) {
			args[at++] = number(list.length);
			System.arraycopy(list, 0, args, at, list.length);
			at += list.length;
		}
		return args;
	}

	/** Hands a lone call its reply, or each call of a batch its own reply, or the error its script raised. */
	void settle(@Nullable List<?> reply, @Nullable RuntimeException failure) {
		if (this.calls.size() == 1) {
			this.calls.get(0).settle(reply, failure);
			return;
		}
		if (failure == null && (reply == null || reply.size() != this.calls.size())) {
			failure = new RedisSystemException("Unexpected reply from the batch script: " + reply, null);
		}
		for (int c = 0; c < this.calls.size(); c++) {
			BatchCall call = this.calls.get(c);
			if (failure != null || reply == null) {
				call.answer.completeExceptionally(failure);
			}
			else if (reply.get(c) instanceof List<?> own) {
				call.settle(own, null);
			}
			else {
				Object error = reply.get(c);
				String message = (error instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8)
						: String.valueOf(error);
				call.answer.completeExceptionally(new RedisSystemException(
						"Redis answered the rate-limit script with an error: " + message, null));
			}
		}
	}

	private static byte[] number(int value) {
		return (value < NUMBERS.length) ? NUMBERS[value] : Integer.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}
