package dev.ratelimit.gateway;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * The service behind the test gateway: a real HTTP server on 127.0.0.1 that answers every request with 200
 * and its path, and counts the requests that reached it.
 */
final class Backend implements AutoCloseable {

	private final HttpServer server;

	private final AtomicInteger requests = new AtomicInteger();

	private Backend(HttpServer server) {
		this.server = server;
	}

	static Backend start() {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
			Backend backend = new Backend(server);
			server.createContext("/", (exchange) -> {
				backend.requests.incrementAndGet();
				byte[] body = ("backend " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
				exchange.sendResponseHeaders(200, body.length);
				try (OutputStream out = exchange.getResponseBody()) {
					out.write(body);
				}
			});
			server.start();
			return backend;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	String uri() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	int requests() {
		return this.requests.get();
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
