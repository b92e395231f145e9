package dev.ratelimit.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import io.netty.util.concurrent.EventExecutor;
import org.jspecify.annotations.Nullable;

/**
 * Hands the answer of an asynchronous decision made on a Netty event loop (a WebFlux handler on Reactor
 * Netty, say) back to that loop, instead of completing it on Lettuce's I/O thread: what the caller does
 * next (writing its response, say) runs where it would have run had the decision been local, and never
 * holds up the thread that reads every Redis reply. A response written from Lettuce's thread was, now and
 * then, never sent by Reactor Netty. A call made on any other thread gets its answer where it completes.
 */
final class CallerLoops {

	private CallerLoops() {
	}

	/**
	 * Returns {@code answer}, completed on the event loop of the thread calling this when it runs on one
	 * and {@code answer} is not complete yet; else {@code answer} itself.
	 * @param answer the answer of a call made on the calling thread
	 * @return the answer to hand to the caller
	 */
	static <T> CompletableFuture<T> backOnCaller(CompletableFuture<T> answer) {
		if (!CurrentEventLoop.isAvailable() || answer.isDone()) {
			return answer;
		}
		Executor loop = Netty.current();
		if (loop == null) {
			return answer;
		}
		CompletableFuture<T> onLoop = new CompletableFuture<>();
		answer.whenComplete((value, failure) -> {
			if (Netty.inLoop(loop)) {
				complete(onLoop, value, failure);
				return;
			}
			try {
				loop.execute(() -> complete(onLoop, value, failure));
			}
			catch (RejectedExecutionException ex) {
				// the loop is shutting down: the answer is not lost for that
				complete(onLoop, value, failure);
			}
		});
		return onLoop;
	}

	private static <T> void complete(CompletableFuture<T> future, @Nullable T value, @Nullable Throwable failure) {
		if (failure != null) {
			future.completeExceptionally(Futures.unwrap(failure));
		}
		else {
			future.complete(value);
		}
	}

	/** Reads Netty's types only when they are on the class path. */
	private static final class Netty {

		static @Nullable Executor current() {
			return CurrentEventLoop.get();
		}

		static boolean inLoop(Executor loop) {
			return ((EventExecutor) loop).inEventLoop();
		}

	}

}
