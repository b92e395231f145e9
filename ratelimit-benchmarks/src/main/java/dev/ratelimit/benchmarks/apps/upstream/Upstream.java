package dev.ratelimit.benchmarks.apps.upstream;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The gateway's upstream: Reactor Netty answering {@code hello} to any request, on 127.0.0.1 and the port given
 * as the only argument, until its process is stopped. Plain Reactor Netty, with nothing of Spring, so that it
 * costs the machine little beside the gateway it serves.
 */
public final class Upstream {

	private Upstream() {
	}

	public static void main(String[] args) {
		byte[] body = "hello".getBytes(StandardCharsets.US_ASCII);
		DisposableServer server = HttpServer.create()
			.host("127.0.0.1")
			.port(Integer.parseInt(args[0]))
			.handle((request, response) -> response.header(HttpHeaderNames.CONTENT_TYPE, "text/plain")
				.header(HttpHeaderNames.CONTENT_LENGTH, String.valueOf(body.length))
				.send(Mono.just(Unpooled.wrappedBuffer(body))))
			.bindNow();
		System.out.println("upstream listening on " + server.port());
		server.onDispose().block();
	}

}
