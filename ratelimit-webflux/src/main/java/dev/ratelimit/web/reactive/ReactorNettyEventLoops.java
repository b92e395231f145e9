package dev.ratelimit.web.reactive;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.lettuce.core.resource.Transports;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import reactor.netty.resources.LoopResources;

/**
 * Runs Lettuce's connections on Reactor Netty's server event loops instead of Lettuce's own I/O threads: Redis'
 * replies then arrive on a thread that serves requests, so that a decision goes on without waking another thread,
 * and on the very loop of the request that waits for it when the connection shares that loop. Set it on the
 * application's {@link ClientResources} ({@link ClientResources.Builder#eventLoopGroupProvider}); the starter does
 * so with {@code ratelimit.lettuce.shared-event-loops=true}.
 * <p>
 * The loops stay Reactor Netty's: Lettuce neither creates nor shuts them down. The loops of the transport Lettuce
 * connects with are used (native, such as epoll, or NIO), which are the server's whenever both use the same one
 * (the default). Nothing may then wait on Redis on a server loop: a blocking Redis call made on one would wait for a
 * reply that loop itself has to read, until the command's timeout.
 *
 * @since 0.1.0
 */
public final class ReactorNettyEventLoops implements EventLoopGroupProvider {

	private final Supplier<? extends LoopResources> loops;

	/**
	 * Uses the server loops of the given resources, asked for when Lettuce first connects.
	 * @param loops the loop resources the server runs on (Spring's {@code ReactorResourceFactory#getLoopResources},
	 * or Reactor Netty's global {@code HttpResources.get()})
	 */
	public ReactorNettyEventLoops(Supplier<? extends LoopResources> loops) {
		this.loops = loops;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T extends EventLoopGroup> T allocate(Class<T> type) {
		return (T) this.loops.get().onServer(nativeTransport());
	}

	/** Whether Lettuce connects with a native transport, whose loops the server's native ones are. */
	static boolean nativeTransport() {
		return !NioSocketChannel.class.equals(Transports.socketChannelClass());
	}

	@Override
	public int threadPoolSize() {
		return LoopResources.DEFAULT_IO_WORKER_COUNT;
	}

	@Override
	public Future<Boolean> release(EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout, TimeUnit unit) {
		// Reactor Netty's to shut down, with the server
		return ImmediateEventExecutor.INSTANCE.newSucceededFuture(Boolean.TRUE);
	}

	@Override
	public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
		return ImmediateEventExecutor.INSTANCE.newSucceededFuture(Boolean.TRUE);
	}

}
