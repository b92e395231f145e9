package dev.ratelimit.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A bare RESP2 connection to Redis over a socket, as {@code redis-benchmark} uses one: commands are
 * encoded once and written back to back, replies read in order. Used to drive the physical limit and
 * to pre-fill keys with next to no client cost.
 */
public final class RespConnection implements AutoCloseable {

	private final Socket socket;

	private final OutputStream out;

	private final InputStream in;

	private RespConnection(Socket socket) throws IOException {
		this.socket = socket;
		this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
		this.in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
	}

	/**
	 * Connects to Redis on 127.0.0.1.
	 * @param port the port
	 * @return the connection
	 */
	public static RespConnection open(int port) {
		try {
			Socket socket = new Socket();
			socket.setTcpNoDelay(true);
			socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			socket.setSoTimeout(30_000);
			return new RespConnection(socket);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Encodes a command in RESP, to be written many times.
	 * @param parts the command and its arguments
	 * @return the bytes on the wire
	 */
	public static byte[] encode(String... parts) {
		ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 + 16 * parts.length);
		writeAscii(buffer, "*" + parts.length + "\r\n");
		for (String part : parts) {
			byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
			writeAscii(buffer, "$" + bytes.length + "\r\n");
			buffer.writeBytes(bytes);
			writeAscii(buffer, "\r\n");
		}
		return buffer.toByteArray();
	}

	private static void writeAscii(ByteArrayOutputStream buffer, String text) {
		buffer.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
	}

	/**
	 * Sends one command and returns its reply.
	 * @param parts the command and its arguments
	 * @return the reply, as {@link #read()} returns it
	 */
	public @Nullable Object call(String... parts) {
		write(encode(parts));
		flush();
		Object reply = read();
		if (reply instanceof Error error) {
			throw new IllegalStateException("Redis replied " + error.message() + " to " + parts[0]);
		}
		return reply;
	}

	/**
	 * Buffers an encoded command; {@link #flush()} sends what was buffered.
	 * @param command the encoded command
	 */
	public void write(byte[] command) {
		try {
			this.out.write(command);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Sends the buffered commands.
	 */
	public void flush() {
		try {
			this.out.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Reads one reply: a {@link String} for a status, {@link Error} for an error, {@link Long},
	 * {@code byte[]} for a bulk string, {@code null} for a nil, or a {@link List} for an array.
	 * @return the reply
	 */
	public @Nullable Object read() {
		try {
			int type = this.in.read();
			switch (type) {
				case '+':
					return line();
				case '-':
					return new Error(line());
				case ':':
					return Long.parseLong(line());
				case '$': {
					int length = Integer.parseInt(line());
					if (length < 0) {
						return null;
					}
					byte[] bytes = this.in.readNBytes(length);
					this.in.readNBytes(2);
					return bytes;
				}
				case '*': {
					int count = Integer.parseInt(line());
					if (count < 0) {
						return null;
					}
					List<@Nullable Object> items = new ArrayList<>(count);
					for (int i = 0; i < count; i++) {
						items.add(read());
					}
					return items;
				}
				default:
					throw new IllegalStateException("Unexpected RESP type byte " + type);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Reads one reply and fails when it is an error.
	 * @return the reply
	 */
	public @Nullable Object readOk() {
		Object reply = read();
		if (reply instanceof Error error) {
			throw new IllegalStateException("Redis replied " + error.message());
		}
		return reply;
	}

	private String line() throws IOException {
		StringBuilder builder = new StringBuilder(16);
		int b;
		while ((b = this.in.read()) != '\r') {
			if (b < 0) {
				throw new IOException("Connection closed by Redis");
			}
			builder.append((char) b);
		}
		this.in.read();
		return builder.toString();
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * An error reply.
	 *
	 * @param message the error message, such as {@code NOSCRIPT No matching script}
	 */
	public record Error(String message) {
	}

}
