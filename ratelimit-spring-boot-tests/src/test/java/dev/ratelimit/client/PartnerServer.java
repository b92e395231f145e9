package dev.ratelimit.client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A partner on 127.0.0.1 (the JDK's HTTP server, on a port of its choosing) that counts the calls it receives, by
 * the first segment of their path (its dot segments resolved, {@code //} read as {@code /}), and the time each arrived; it answers {@code 200}, or {@code 429} with
 * {@code Retry-After} to the calls a test arms it to refuse.
 */
final class PartnerServer implements AutoCloseable {

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(16);

	private final Map<String, List<Long>> arrivals = new ConcurrentHashMap<>();

	private final Map<String, Integer> refuseNext = new ConcurrentHashMap<>();

	PartnerServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/", this::handle);
		this.server.setExecutor(this.executor);
		this.server.start();
	}

	String url(String path) {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + path;
	}

	/** Answers the next call under a prefix with {@code 429} and {@code Retry-After: <seconds>}. */
	void refuseNext(String prefix, int retryAfterSeconds) {
		this.refuseNext.put(prefix, retryAfterSeconds);
	}

	/** The times (System.nanoTime) at which the calls under a prefix arrived, in order. */
	List<Long> arrivals(String prefix) {
		return List.copyOf(this.arrivals.getOrDefault(prefix, List.of()));
	}

	int received(String prefix) {
		return arrivals(prefix).size();
	}

	private void handle(HttpExchange exchange) throws IOException {
		long now = System.nanoTime();
		// as the partner reads it: dot segments resolved, "//" as "/"
		String sent = exchange.getRequestURI().toString().replaceAll("[?#].*", "").replaceAll("/{2,}", "/");
		String path = URI.create(sent).normalize().getPath();
		String prefix = path.substring(1).split("/")[0];
		this.arrivals.computeIfAbsent(prefix, (key) -> new CopyOnWriteArrayList<>()).add(now);
		Integer retryAfter = this.refuseNext.remove(prefix);
		byte[] body = ((retryAfter != null) ? "slow down" : "ok").getBytes(StandardCharsets.UTF_8);
		if (retryAfter != null) {
			exchange.getResponseHeaders().set("Retry-After", Integer.toString(retryAfter));
		}
		exchange.getResponseHeaders().set("Content-Type", "text/plain");
		exchange.sendResponseHeaders((retryAfter != null) ? 429 : 200, body.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(body);
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

}
