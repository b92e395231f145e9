package dev.ratelimit.web.reactive;

import java.util.concurrent.CompletableFuture;

import io.netty.channel.EventLoop;
import org.jspecify.annotations.Nullable;
import reactor.netty.Connection;

import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.ServerWebExchange;

/**
 * Brings a decision that arrives on another thread (Lettuce's I/O thread) back to the event loop of the
 * exchange's connection on Reactor Netty before the response is written and the chain goes on: a response
 * written from Lettuce's thread was, now and then, never sent (the exchange hung until the client gave
 * up). A decision that arrives on the event loop already (from the local denial cache) goes on at once.
 */
final class EventLoops {

	private static final boolean REACTOR_NETTY = ClassUtils.isPresent("reactor.netty.Connection",
			EventLoops.class.getClassLoader());

	private EventLoops() {
	}

	static <T> CompletableFuture<T> backOn(ServerWebExchange exchange, CompletableFuture<T> decision) {
		EventLoop loop = REACTOR_NETTY ? NettyLoop.of(exchange) : null;
		if (loop == null) {
			return decision;
		}
		return decision.thenCompose((value) -> loop.inEventLoop() ? CompletableFuture.completedFuture(value)
				: CompletableFuture.supplyAsync(() -> value, loop));
	}

	/** Reads Reactor Netty's types only when they are on the class path. */
	private static final class NettyLoop {

		static @Nullable EventLoop of(ServerWebExchange exchange) {
			Object request = ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest());
			return (request instanceof Connection connection) ? connection.channel().eventLoop() : null;
		}

	}

}
