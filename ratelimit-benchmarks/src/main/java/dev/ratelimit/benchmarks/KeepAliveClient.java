package dev.ratelimit.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * An HTTP/1.1 keep-alive client over one socket, enough for Tomcat's and Reactor Netty's replies: a
 * Content-Length or a chunked body.
 */
final class KeepAliveClient implements AutoCloseable {

	private final int port;

	private final String host;

	private @Nullable Socket socket;

	private @Nullable OutputStream out;

	private @Nullable InputStream in;

	KeepAliveClient(int port) {
		this.port = port;
		this.host = "127.0.0.1:" + port;
		connect();
	}

	private void connect() {
		try {
			Socket socket = new Socket();
			socket.setTcpNoDelay(true);
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 2000);
			socket.setSoTimeout(10_000);
			this.socket = socket;
			this.out = socket.getOutputStream();
			this.in = new BufferedInputStream(socket.getInputStream(), 8192);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Sends a request and reads its response; reconnects when Tomcat closed the connection. */
	Response get(String path, String apiKey) {
		if (this.socket == null) {
			connect();
		}
		try {
			this.out.write(("GET " + path + " HTTP/1.1\r\nHost: " + this.host + "\r\nX-Api-Key: " + apiKey
					+ "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
			this.out.flush();
			String statusLine = line();
			int status = Integer.parseInt(statusLine.split(" ")[1]);
			StringBuilder headers = new StringBuilder();
			long length = -1;
			boolean chunked = false;
			boolean close = false;
			for (String header = line(); !header.isEmpty(); header = line()) {
				String lower = header.toLowerCase(Locale.ROOT);
				headers.append(lower).append('\n');
				if (lower.startsWith("content-length:")) {
					length = Long.parseLong(lower.substring(15).trim());
				}
				else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
					chunked = true;
				}
				else if (lower.startsWith("connection:") && lower.contains("close")) {
					// Tomcat closes a keep-alive connection after 100 requests by default
					close = true;
				}
			}
			if (chunked) {
				for (long size = Long.parseLong(line().trim(), 16); size > 0; size = Long.parseLong(line().trim(), 16)) {
					this.in.skipNBytes(size);
					line();
				}
				line();
			}
			else if (length > 0) {
				this.in.skipNBytes(length);
			}
			if (close) {
				close();
			}
			return new Response(status, headers.toString());
		}
		catch (IOException ex) {
			close();
			throw new UncheckedIOException(ex);
		}
	}

	private String line() throws IOException {
		StringBuilder builder = new StringBuilder(64);
		int b;
		while ((b = this.in.read()) != '\n') {
			if (b < 0) {
				throw new IOException("Connection closed");
			}
			if (b != '\r') {
				builder.append((char) b);
			}
		}
		return builder.toString();
	}

	@Override
	public void close() {
		Socket current = this.socket;
		this.socket = null;
		if (current != null) {
			try {
				current.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}
	}

	/**
	 * A response: status and the header block in lower case.
	 */
	record Response(int status, String headers) {
	}

}
