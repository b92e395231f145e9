package dev.ratelimit.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.rules.flow.RateLimitPlanCache;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * An application of one {@link WebStack}, running, and an HTTP client for it that can also send from another
 * loopback address (127.0.0.2, say) than the 127.0.0.1 every other client uses, for what depends on who the
 * peer is (trusted proxies, allow and deny lists).
 */
public final class StackApp implements AutoCloseable {

	private final WebStack stack;

	private final ConfigurableApplicationContext context;

	private final int port;

	StackApp(WebStack stack, ConfigurableApplicationContext context) {
		this.stack = stack;
		this.context = context;
		this.port = Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
	}

	public WebStack stack() {
		return this.stack;
	}

	public ConfigurableApplicationContext context() {
		return this.context;
	}

	public String keyPrefix() {
		return this.context.getEnvironment().getRequiredProperty("ratelimit.key-prefix");
	}

	/** The keys this application wrote in the test Redis. */
	public Set<String> redisKeys() {
		return this.context.getBean(StringRedisTemplate.class).keys(keyPrefix() + ":*");
	}

	/**
	 * Deletes every key this application wrote, and what it remembers of them (refusals, plans), so that a test
	 * starts with full budgets.
	 */
	public void deleteBudgets() {
		try {
			Set<String> keys = redisKeys();
			if (!keys.isEmpty()) {
				this.context.getBean(StringRedisTemplate.class).delete(keys);
			}
		}
		catch (DataAccessException ex) {
			// an application pointed at a Redis that does not answer has no budgets there
		}
		this.context.getBeanProvider(LocalDenialCache.class).ifAvailable(LocalDenialCache::clear);
		this.context.getBeanProvider(RateLimitPlanCache.class).ifAvailable(RateLimitPlanCache::clear);
	}

	/**
	 * Sends a GET from 127.0.0.1.
	 * @param path the path and query
	 * @param headers names and values, in turn
	 * @return the reply
	 */
	public Reply get(String path, String... headers) {
		return getFrom("127.0.0.1", path, headers);
	}

	/**
	 * Sends a GET from a loopback address of the caller's choosing, over a connection of its own.
	 * @param localAddress where the connection comes from, such as {@code 127.0.0.2}
	 * @param path the path and query
	 * @param headers names and values, in turn
	 * @return the reply
	 */
	public Reply getFrom(String localAddress, String path, String... headers) {
		try (Socket socket = send(localAddress, "GET", path, null, headers)) {
			return Reply.read(socket.getInputStream());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Sends a GET from 127.0.0.1 and returns its connection without reading the answer, for a test that goes
	 * away before it comes (by closing the socket).
	 * @param path the path and query
	 * @param headers names and values, in turn
	 * @return the connection
	 */
	public Socket open(String path, String... headers) {
		try {
			return send("127.0.0.1", "GET", path, null, headers);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Sends a request of any method from 127.0.0.1, with a JSON body or none.
	 * @param method the method
	 * @param path the path and query
	 * @param json the body, or {@code null}
	 * @param headers names and values, in turn
	 * @return the reply
	 */
	public Reply send(String method, String path, String json, String... headers) {
		try (Socket socket = send("127.0.0.1", method, path, json, headers)) {
			return Reply.read(socket.getInputStream());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private Socket send(String localAddress, String method, String path, String json, String... headers)
			throws IOException {
		Socket socket = new Socket();
		try {
			socket.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
			socket.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), this.port), 5_000);
			socket.setSoTimeout(10_000);
			StringBuilder request = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n")
				.append("Host: 127.0.0.1:").append(this.port).append("\r\nConnection: close\r\n");
			for (int i = 0; i < headers.length; i += 2) {
				request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
			}
			byte[] body = (json != null) ? json.getBytes(StandardCharsets.UTF_8) : new byte[0];
			if (json != null) {
				request.append("Content-Type: application/json\r\n");
			}
			if (json != null || !method.equals("GET")) {
				request.append("Content-Length: ").append(body.length).append("\r\n");
			}
			OutputStream out = socket.getOutputStream();
			out.write(request.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
			out.write(body);
			out.flush();
			return socket;
		}
		catch (IOException | RuntimeException ex) {
			socket.close();
			throw ex;
		}
	}

	/**
	 * Reads the status line of a response, and nothing more, for a test that acts as soon as the status arrives.
	 * @param in the connection's input
	 * @return the status
	 * @throws IOException when the connection closes first
	 */
	public static int readStatus(InputStream in) throws IOException {
		String statusLine = Reply.line(in);
		if (statusLine == null) {
			throw new IOException("The server closed the connection without a response");
		}
		return Integer.parseInt(statusLine.split(" ")[1]);
	}

	@Override
	public void close() {
		this.context.close();
	}

	@Override
	public String toString() {
		return this.stack.name();
	}

	/**
	 * A response: its status, headers (names in lower case) and body.
	 *
	 * @param status the status
	 * @param headers every value of each header, by lower-case name
	 * @param body the body, de-chunked
	 */
	public record Reply(int status, Map<String, List<String>> headers, String body) {

		public Optional<String> header(String name) {
			List<String> values = this.headers.get(name.toLowerCase(Locale.ROOT));
			return (values == null || values.isEmpty()) ? Optional.empty() : Optional.of(values.get(0));
		}

		static Reply read(InputStream in) throws IOException {
			String statusLine = line(in);
			if (statusLine == null) {
				throw new IOException("The server closed the connection without a response");
			}
			int status = Integer.parseInt(statusLine.split(" ")[1]);
			Map<String, List<String>> headers = new LinkedHashMap<>();
			for (String line = line(in); line != null && !line.isEmpty(); line = line(in)) {
				int colon = line.indexOf(':');
				headers.computeIfAbsent(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), (k) -> new ArrayList<>())
					.add(line.substring(colon + 1).strip());
			}
			ByteArrayOutputStream body = new ByteArrayOutputStream();
			if (headers.getOrDefault("transfer-encoding", List.of()).contains("chunked")) {
				for (String size = line(in); size != null; size = line(in)) {
					int length = Integer.parseInt(size.strip(), 16);
					if (length == 0) {
						break;
					}
					body.write(in.readNBytes(length));
					line(in);
				}
			}
			else {
				body.write(in.readAllBytes());
			}
			return new Reply(status, headers, body.toString(StandardCharsets.UTF_8));
		}

		private static String line(InputStream in) throws IOException {
			ByteArrayOutputStream line = new ByteArrayOutputStream();
			for (int b = in.read(); b != -1; b = in.read()) {
				if (b == '\n') {
					String text = line.toString(StandardCharsets.ISO_8859_1);
					return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
				}
				line.write(b);
			}
			return (line.size() > 0) ? line.toString(StandardCharsets.ISO_8859_1) : null;
		}

	}

}
