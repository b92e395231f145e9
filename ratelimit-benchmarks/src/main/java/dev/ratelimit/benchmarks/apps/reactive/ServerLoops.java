package dev.ratelimit.benchmarks.apps.reactive;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import reactor.netty.http.HttpResources;
import reactor.netty.resources.LoopResources;

/**
 * The hand-made call's Lettuce client on Reactor Netty's server event loops, as the starter's
 * {@code ratelimit.lettuce.shared-event-loops} does it for its own (here without the starter's jars, which the plain
 * application has not): used by {@link ReactiveApp} when started with {@code -Dbench.shared-loops=true}. Lettuce
 * neither creates nor shuts these loops down.
 */
final class ServerLoops implements EventLoopGroupProvider {

	private ServerLoops() {
	}

	/** Returns client resources whose connections run on Reactor Netty's server loops. */
	static ClientResources clientResources() {
		return ClientResources.builder().eventLoopGroupProvider(new ServerLoops()).build();
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T extends EventLoopGroup> T allocate(Class<T> type) {
		return (T) HttpResources.get().onServer(LoopResources.DEFAULT_NATIVE);
	}

	@Override
	public int threadPoolSize() {
		return LoopResources.DEFAULT_IO_WORKER_COUNT;
	}

	@Override
	public Future<Boolean> release(EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout, TimeUnit unit) {
		return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
	}

	@Override
	public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
		return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
	}

}
