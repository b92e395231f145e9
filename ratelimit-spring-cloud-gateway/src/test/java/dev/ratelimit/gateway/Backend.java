package dev.ratelimit.gateway;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * The service behind the test gateway: a real HTTP server on 127.0.0.1 that answers every request with 200
 * and its path, and counts the requests that reached it.
 */
final class Backend implements AutoCloseable {

	private final HttpServer server;

	private final AtomicInteger requests = new AtomicInteger();

	private final AtomicInteger inFlight = new AtomicInteger();

	private final AtomicInteger mostInFlight = new AtomicInteger();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	/** What requests under a {@code /held} path wait for before they are answered. */
	volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

	private Backend(HttpServer server) {
		this.server = server;
	}

	static Backend start() {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
			Backend backend = new Backend(server);
			server.setExecutor(backend.executor);
			server.createContext("/", (exchange) -> {
				backend.requests.incrementAndGet();
				backend.mostInFlight.accumulateAndGet(backend.inFlight.incrementAndGet(), Math::max);
				try {
					if (exchange.getRequestURI().getPath().contains("/held")) {
						backend.gate.join();
					}
				}
				finally {
					backend.inFlight.decrementAndGet();
				}
				String query = exchange.getRequestURI().getQuery();
				if (query != null && query.startsWith("tokens=")) {
					// what an LLM proxy tells: the tokens the answer cost
					exchange.getResponseHeaders().add("X-Tokens-Used", query.substring("tokens=".length()));
				}
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

	/** The requests the backend serves now. */
	int inFlight() {
		return this.inFlight.get();
	}

	/** The most requests the backend served at once. */
	int mostInFlight() {
		return this.mostInFlight.get();
	}

	@Override
	public void close() {
		this.gate.complete(null);
		this.server.stop(0);
		this.executor.shutdownNow();
	}

}
