package dev.ratelimit.testsupport;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.lettuce.core.resource.Transports;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.EventExecutor;

import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Where an application's Lettuce connections run, for the tests of {@code ratelimit.lettuce.shared-event-loops} on
 * each Reactor Netty door (WebFlux, the gateway): the thread a Redis reply arrives on, and Lettuce's own I/O threads.
 */
public final class LettuceThreads {

	/** The names Lettuce gives the threads of the event loops it creates itself. */
	private static final Pattern OWN_IO_THREAD = Pattern.compile("lettuce-(epoll|nio|kqueue|iouring|ioUring)EventLoop-.*");

	private LettuceThreads() {
	}

	/**
	 * Returns the thread a reply of Redis arrives on, through the factory's shared reactive connection (Lettuce
	 * emits replies on the I/O thread of the connection).
	 * @param factory the application's connection factory
	 * @return the thread
	 */
	public static Thread replyThread(LettuceConnectionFactory factory) {
		ReactiveRedisConnection connection = factory.getReactiveConnection();
		return Objects.requireNonNull(connection.ping()
			.map((pong) -> Thread.currentThread())
			.block(Duration.ofSeconds(10)));
	}

	/**
	 * Whether the thread runs one of the event loops.
	 * @param thread the thread
	 * @param loops the loops, as {@code LoopResources.onServer(...)} gives them
	 * @return whether it is one of them
	 */
	public static boolean isOneOf(Thread thread, Iterable<EventExecutor> loops) {
		for (EventExecutor loop : loops) {
			if (loop.inEventLoop(thread)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether Lettuce connects with a native transport (epoll, say) rather than NIO, so whose loops of Reactor Netty
	 * ({@code onServer(nativeTransport())}) it runs on when it shares them.
	 * @return whether it does
	 */
	public static boolean nativeTransport() {
		return !NioSocketChannel.class.equals(Transports.socketChannelClass());
	}

	/**
	 * Returns the names of the live threads of the event loops Lettuce created itself, in every client of this JVM.
	 * @return their names
	 */
	public static Set<String> ownIoThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.map(Thread::getName)
			.filter((name) -> OWN_IO_THREAD.matcher(name).matches())
			.collect(Collectors.toSet());
	}

}
