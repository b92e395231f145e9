package dev.ratelimit.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What the limiters do with their futures: the failure a stage wrapped, and the result of a completed
 * future with its failure thrown as it was thrown.
 */
final class Futures {

	private Futures() {
	}

	/** Returns the failure a {@link CompletionException} wraps, else the failure itself. */
	static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

	/** Returns the result of a completed future, throwing its failure as it was thrown. */
	static <T> T join(CompletableFuture<T> future) {
		try {
			return future.join();
		}
		catch (CompletionException ex) {
			Throwable cause = unwrap(ex);
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw ex;
		}
	}

}
