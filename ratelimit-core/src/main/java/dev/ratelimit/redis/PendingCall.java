package dev.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A script call of the {@link LettuceScriptRunner} on its way: the answer its caller waits for, and
 * where the reply goes when it comes after the caller gave up (a command Redis has been sent runs, whatever
 * the caller does: what it did is undone from its reply).
 */
abstract class PendingCall {

	private static final Log logger = LogFactory.getLog(LettuceScriptRunner.class);

	final CompletableFuture<List<?>> answer = new CompletableFuture<>();

	private final @Nullable Consumer<List<?>> lateReply;

	/**
	 * @param lateReply told of the reply when it comes after the caller was told of a timeout, or {@code null}
	 */
	PendingCall(@Nullable Consumer<List<?>> lateReply) {
		this.lateReply = lateReply;
	}

	/**
	 * Hands the caller the reply, or the translated failure; a reply that comes after the caller was told of a
	 * timeout goes to the late reply's consumer instead.
	 */
	final void settle(@Nullable List<?> reply, @Nullable RuntimeException failure) {
		if (failure != null) {
			this.answer.completeExceptionally(failure);
		}
		else if (!this.answer.complete(reply) && reply != null) {
			late(reply);
		}
	}

	private void late(List<?> reply) {
		Consumer<List<?>> consumer = this.lateReply;
		if (consumer == null || !this.answer.isCompletedExceptionally()) {
			return;
		}
		try {
			consumer.accept(reply);
		}
		catch (RuntimeException ex) {
			logger.warn("What Redis did for a rate-limit call that had timed out could not be undone: " + ex, ex);
		}
	}

	/** Called once the caller gave up waiting (its answer completed with the timeout). */
	abstract void abandon();

	/**
	 * A call sent as a command of its own. Giving up on it does not cancel the command: one that was written runs
	 * in Redis all the same, and its reply, kept, is what undoes it.
	 */
	static final class Solo extends PendingCall {

		Solo(@Nullable Consumer<List<?>> lateReply) {
			super(lateReply);
		}

		@Override
		void abandon() {
		}

	}

}
