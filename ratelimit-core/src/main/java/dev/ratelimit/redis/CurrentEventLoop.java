package dev.ratelimit.redis;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Finds the Netty event loop of the calling thread: the one place in the project that reads Netty's internal
 * {@code io.netty.util.internal.ThreadExecutorMap}, for Netty has no public API that tells a thread's event
 * loop (a channel knows its loop; a thread running a callback of Lettuce's, or a caller of
 * {@code tryAcquireAsync}, has no channel at hand). Netty sets the map for every task its event loops run, in
 * 4.1 and 4.2 alike. Should a Netty upgrade move or drop it, {@link #isAvailable()} answers {@code false} and
 * callers go on without the loop (answers complete where Redis's reply arrives);
 * {@code CurrentEventLoopTests}, run on each Spring Boot line the project supports, is there to catch it.
 */
final class CurrentEventLoop {

	private static final boolean AVAILABLE = ClassUtils.isPresent("io.netty.util.internal.ThreadExecutorMap",
			CurrentEventLoop.class.getClassLoader());

	private CurrentEventLoop() {
	}

	/**
	 * Returns whether the calling thread's event loop can be found: Netty, and the internal map, are on the
	 * class path.
	 * @return whether {@link #get()} may be called
	 */
	static boolean isAvailable() {
		return AVAILABLE;
	}

	/**
	 * Returns the event loop of the calling thread; call only when {@link #isAvailable()}.
	 * @return the loop, or {@code null} when the thread runs none
	 */
	static @Nullable EventExecutor get() {
		return ThreadExecutorMap.currentExecutor();
	}

}
