package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A closed-loop HTTP/1.1 load, as wrk makes it: a fixed number of keep-alive connections, each sending its next
 * request as soon as the previous response has arrived, all from one thread over non-blocking sockets so that the
 * load costs the CPU it shares with Redis little. Requests cycle through a list of prepared ones (different
 * {@code X-Api-Key} values, so different keys). A response is complete when its headers and its
 * {@code Content-Length} body, or its chunked body, have arrived; a connection the server closes is opened again.
 */
final class ClosedLoopLoad {

	private final int port;

	private final List<byte[]> requests;

	private final int connections;

	ClosedLoopLoad(int port, List<byte[]> requests, int connections) {
		this.port = port;
		this.requests = requests;
		this.connections = connections;
	}

	/**
	 * Returns GET requests for a path, one per key, with the {@code X-Api-Key} header set to the key.
	 * @param port the server's port, for the Host header
	 * @param path the path
	 * @param keys how many keys
	 * @return the requests' bytes
	 */
	static List<byte[]> requests(int port, String path, int keys) {
		byte[][] requests = new byte[keys][];
		for (int i = 0; i < keys; i++) {
			requests[i] = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Api-Key: key-" + i
					+ "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
		}
		return List.of(requests);
	}

	/**
	 * Runs the load for a time.
	 * @param nanos how long
	 * @return what was answered, with every response's latency
	 */
	Result run(long nanos) {
		try (Selector selector = Selector.open()) {
			Connection[] all = new Connection[this.connections];
			long deadline = System.nanoTime() + nanos;
			Result result = new Result();
			for (int i = 0; i < this.connections; i++) {
				all[i] = new Connection(i);
				all[i].open(selector);
				all[i].sendOrReopen(selector, result);
			}
			while (System.nanoTime() < deadline) {
				selector.select(100);
				for (SelectionKey key : selector.selectedKeys()) {
					Connection connection = (Connection) key.attachment();
					connection.read(key, result);
					if (connection.ready) {
						connection.sendOrReopen(selector, result);
					}
				}
				selector.selectedKeys().clear();
			}
			result.nanos = nanos;
			for (Connection connection : all) {
				connection.close();
			}
			return result;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** What one run of the load was answered. */
	static final class Result {

		private long[] latencies = new long[1 << 16];

		int responses;

		int errors;

		int reconnects;

		long nanos;

		void add(long latencyNanos, int status) {
			if (status != 200) {
				this.errors++;
				return;
			}
			if (this.responses == this.latencies.length) {
				this.latencies = Arrays.copyOf(this.latencies, this.responses * 2);
			}
			this.latencies[this.responses++] = latencyNanos;
		}

		/** Returns the answered (200) responses per second. */
		double perSecond() {
			return this.responses * 1e9 / this.nanos;
		}

		/** Returns a percentile of the latencies of answered responses, in milliseconds. */
		double percentileMillis(double p) {
			if (this.responses == 0) {
				return Double.NaN;
			}
			long[] sorted = Arrays.copyOf(this.latencies, this.responses);
			Arrays.sort(sorted);
			int index = (int) Math.ceil(p * sorted.length) - 1;
			return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / 1e6;
		}

	}

	private final class Connection {

		private final ByteBuffer in = ByteBuffer.allocate(64 * 1024);

		private int next;

		private SocketChannel channel;

		private SelectionKey key;

		private long sentAt;

		boolean ready;

		Connection(int index) {
			this.next = index * 7919;
		}

		void open(Selector selector) throws IOException {
			SocketChannel channel = SocketChannel.open();
			channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
			channel.connect(new InetSocketAddress("127.0.0.1", ClosedLoopLoad.this.port));
			channel.configureBlocking(false);
			this.channel = channel;
			this.key = channel.register(selector, SelectionKey.OP_READ, this);
			this.in.clear();
		}

		/** Sends the next request; a write the server refused (it closed the connection) counts as an error. */
		void sendOrReopen(Selector selector, Result result) throws IOException {
			try {
				send();
			}
			catch (IOException ex) {
				result.errors++;
				reopen(selector, result);
				send();
			}
		}

		private void send() throws IOException {
			List<byte[]> requests = ClosedLoopLoad.this.requests;
			ByteBuffer request = ByteBuffer.wrap(requests.get(this.next++ % requests.size()));
			this.sentAt = System.nanoTime();
			while (request.hasRemaining()) {
				// a request of a hundred bytes fits the socket's send buffer at once
				this.channel.write(request);
			}
			this.ready = false;
		}

		void read(SelectionKey key, Result result) throws IOException {
			int read;
			try {
				read = this.channel.read(this.in);
			}
			catch (IOException ex) {
				read = -1;
			}
			if (read < 0) {
				// the request in flight is lost: an error
				result.errors++;
				reopen(key.selector(), result);
				return;
			}
			int end = complete();
			if (end < 0) {
				if (!this.in.hasRemaining()) {
					throw new IllegalStateException("A response longer than " + this.in.capacity() + " bytes");
				}
				return;
			}
			result.add(System.nanoTime() - this.sentAt, status());
			boolean close = headerValue("connection: close");
			this.in.flip().position(end);
			this.in.compact();
			if (close) {
				reopen(key.selector(), result);
				return;
			}
			this.ready = true;
		}

		private void reopen(Selector selector, Result result) throws IOException {
			result.reconnects++;
			close();
			open(selector);
			this.ready = true;
		}

		private int status() {
			byte[] bytes = this.in.array();
			return (bytes[9] - '0') * 100 + (bytes[10] - '0') * 10 + (bytes[11] - '0');
		}

		/** Returns where the response in the buffer ends, or -1 while it is not complete. */
		private int complete() {
			byte[] bytes = this.in.array();
			int limit = this.in.position();
			int headersEnd = indexOf(bytes, 0, limit, "\r\n\r\n");
			if (headersEnd < 0) {
				return -1;
			}
			int bodyStart = headersEnd + 4;
			String headers = new String(bytes, 0, headersEnd, StandardCharsets.US_ASCII).toLowerCase();
			int length = headers.indexOf("\ncontent-length:");
			if (length >= 0) {
				int lineEnd = headers.indexOf('\r', length + 1);
				int contentLength = Integer.parseInt(
						headers.substring(length + 16, (lineEnd < 0) ? headers.length() : lineEnd).trim());
				return (limit >= bodyStart + contentLength) ? bodyStart + contentLength : -1;
			}
			if (headers.contains("\ntransfer-encoding: chunked")) {
				int last = indexOf(bytes, bodyStart, limit, "\r\n0\r\n\r\n");
				if (last >= 0) {
					return last + 7;
				}
				return (indexOf(bytes, bodyStart, limit, "0\r\n\r\n") == bodyStart) ? bodyStart + 5 : -1;
			}
			return bodyStart;
		}

		private boolean headerValue(String lowerCaseHeader) {
			byte[] bytes = this.in.array();
			int headersEnd = indexOf(bytes, 0, this.in.position(), "\r\n\r\n");
			return new String(bytes, 0, headersEnd, StandardCharsets.US_ASCII).toLowerCase()
				.contains("\n" + lowerCaseHeader);
		}

		void close() throws IOException {
			this.key.cancel();
			this.channel.close();
		}

	}

	private static int indexOf(byte[] bytes, int from, int to, String text) {
		outer: for (int i = from; i <= to - text.length(); i++) {
			for (int j = 0; j < text.length(); j++) {
				if (bytes[i + j] != text.charAt(j)) {
					continue outer;
				}
			}
			return i;
		}
		return -1;
	}

}
