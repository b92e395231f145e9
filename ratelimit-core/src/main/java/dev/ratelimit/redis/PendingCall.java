package dev.ratelimit.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisFuture;
import org.jspecify.annotations.Nullable;

/**
 * A script call of the {@link LettuceScriptRunner} on its way: the answer its caller waits for, and
 * what giving up on it undoes.
 */
abstract class PendingCall {

	final CompletableFuture<List<?>> answer = new CompletableFuture<>();

	/** Hands the caller the reply, or the translated failure. */
	final void settle(@Nullable List<?> reply, @Nullable RuntimeException failure) {
		if (failure != null) {
			this.answer.completeExceptionally(failure);
		}
		else {
			this.answer.complete(reply);
		}
	}

	/** Tells the call the command that carries it now: EVALSHA, then EVAL on NOSCRIPT. */
	void sent(RedisFuture<?> command) {
	}

	/** Called once the caller gave up waiting (its answer completed with the timeout). */
	abstract void abandon();

	/** A call sent as a command of its own: giving up on it cancels the command. */
	static final class Solo extends PendingCall {

		private volatile @Nullable RedisFuture<?> command;

		@Override
		void sent(RedisFuture<?> command) {
			this.command = command;
		}

		@Override
		void abandon() {
			RedisFuture<?> sent = this.command;
			if (sent != null) {
				sent.cancel(true);
			}
		}

	}

}
