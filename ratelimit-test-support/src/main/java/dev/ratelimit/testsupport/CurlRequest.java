package dev.ratelimit.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * An HTTP/1.1 request sent as curl sends it, over a plain socket, so that a test sees the response as curl prints it:
 * the status line and the headers in the order and spelling of the server, which Java's HTTP clients do not keep.
 * For the tests that check the documentation's curl transcripts ({@link DocumentationTranscripts}).
 */
public final class CurlRequest {

	private final int port;

	private final String method;

	private final String target;

	private final List<String> headers = new ArrayList<>();

	private String body = "";

	private CurlRequest(int port, String method, String target) {
		this.port = port;
		this.method = method;
		this.target = target;
	}

	/**
	 * Starts a {@code GET} to a server on 127.0.0.1.
	 * @param port the server's port
	 * @param target the path and query, such as {@code /api/hello}
	 * @return the request
	 */
	public static CurlRequest get(int port, String target) {
		return new CurlRequest(port, "GET", target);
	}

	/**
	 * Starts a request with another method (curl's {@code -X}).
	 * @param port the server's port
	 * @param method the method, such as {@code POST}
	 * @param target the path and query
	 * @return the request
	 */
	public static CurlRequest of(int port, String method, String target) {
		return new CurlRequest(port, method, target);
	}

	/**
	 * Adds a header (curl's {@code -H}).
	 * @param name the header's name
	 * @param value its value
	 * @return this request
	 */
	public CurlRequest header(String name, String value) {
		this.headers.add(name + ": " + value);
		return this;
	}

	/**
	 * Adds HTTP Basic credentials (curl's {@code -u user:password}).
	 * @param user the user name
	 * @param password the password
	 * @return this request
	 */
	public CurlRequest user(String user, String password) {
		return header("Authorization", "Basic "
				+ Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
	}

	/**
	 * Sends a body (curl's {@code -d}); its content type is a {@link #header}, as with curl's {@code -H}.
	 * @param body the body
	 * @return this request
	 */
	public CurlRequest body(String body) {
		this.body = body;
		return this;
	}

	/**
	 * Sends the request with the headers curl sends, and reads the whole response.
	 * @return the response
	 */
	public Response send() {
		StringBuilder request = new StringBuilder();
		request.append(this.method).append(' ').append(this.target).append(" HTTP/1.1\r\n");
		request.append("Host: localhost:").append(this.port).append("\r\n");
		request.append("User-Agent: curl/7.88.1\r\n");
		request.append("Accept: */*\r\n");
		for (String header : this.headers) {
			request.append(header).append("\r\n");
		}
		byte[] body = this.body.getBytes(StandardCharsets.UTF_8);
		if (body.length > 0) {
			request.append("Content-Length: ").append(body.length).append("\r\n");
		}
		request.append("\r\n");
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout(30_000);
			OutputStream out = socket.getOutputStream();
			out.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
			out.write(body);
			out.flush();
			return read(socket.getInputStream(), this.method.equals("HEAD"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Response read(InputStream in, boolean head) throws IOException {
		String status = line(in);
		List<String> headers = new ArrayList<>();
		for (String line = line(in); !line.isEmpty(); line = line(in)) {
			headers.add(line);
		}
		Response response = new Response(status, headers, "");
		int code = response.status();
		if (head || code == 204 || code == 304 || code / 100 == 1) {
			return response;
		}
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		String length = response.header("Content-Length");
		String encoding = response.header("Transfer-Encoding");
		if (encoding != null && encoding.toLowerCase(Locale.ROOT).contains("chunked")) {
			for (int size = Integer.parseInt(line(in).split(";")[0].trim(), 16); size > 0;
					size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) {
				body.write(in.readNBytes(size));
				line(in);
			}
			// trailers, which curl does not print either
			String trailer = line(in);
			while (!trailer.isEmpty()) {
				trailer = line(in);
			}
		}
		else if (length != null) {
			body.write(in.readNBytes(Integer.parseInt(length.trim())));
		}
		else {
			body.write(in.readAllBytes());
		}
		return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
	}

	private static String line(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		for (int b = in.read(); b != '\n'; b = in.read()) {
			if (b == -1) {
				throw new IOException("The connection ended within a line: " + line.toString(StandardCharsets.UTF_8));
			}
			if (b != '\r') {
				line.write(b);
			}
		}
		return line.toString(StandardCharsets.UTF_8);
	}

	/**
	 * A response as it came.
	 *
	 * @param statusLine the status line, such as {@code HTTP/1.1 200 }
	 * @param headers the header lines, in order
	 * @param body the body, decoded from its chunks
	 */
	public record Response(String statusLine, List<String> headers, String body) {

		/**
		 * Returns the status code.
		 * @return the code
		 */
		public int status() {
			return Integer.parseInt(this.statusLine.split(" ")[1]);
		}

		/**
		 * Returns the first value of a header, whatever the case of its name.
		 * @param name the header's name
		 * @return its value, or {@code null} when there is none
		 */
		public @Nullable String header(String name) {
			for (String header : this.headers) {
				int colon = header.indexOf(':');
				if (colon > 0 && header.substring(0, colon).equalsIgnoreCase(name)) {
					return header.substring(colon + 1).trim();
				}
			}
			return null;
		}

		/**
		 * Returns the response as {@code curl -i} prints it: the status line, the headers, a blank line, the body.
		 * @return the text, with a line break after each header line
		 */
		public String included() {
			return this.statusLine + "\n" + String.join("\n", this.headers) + (this.headers.isEmpty() ? "" : "\n")
					+ "\n" + this.body;
		}

		/**
		 * Returns the status line and the headers of some names, as {@code curl -si | grep} would keep them.
		 * @param names the names of the headers to keep, whatever their case
		 * @return the lines, each ending with a line break
		 */
		public String statusAndHeaders(String... names) {
			StringBuilder lines = new StringBuilder(this.statusLine).append('\n');
			for (String header : this.headers) {
				for (String name : names) {
					if (header.regionMatches(true, 0, name + ":", 0, name.length() + 1)) {
						lines.append(header).append('\n');
					}
				}
			}
			return lines.toString();
		}

	}

}
