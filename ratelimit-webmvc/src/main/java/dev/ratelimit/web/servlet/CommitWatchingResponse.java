package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Locale;
import java.util.function.IntConsumer;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.jspecify.annotations.Nullable;

/**
 * A response that tells, once, the status it is about to commit with, before the container sends it: on
 * {@code flushBuffer}, a flush or close of its body, a write that fills the container's buffer or reaches the declared
 * content length, {@code sendError} and {@code sendRedirect}. What is told then is settled before the client can have
 * the status ({@code count-statuses}). A writer's characters are counted at the most bytes its encoding gives one, so
 * that a write the container would commit is always seen first; such a write may be told a little early, before the
 * container's buffer is really full.
 */
final class CommitWatchingResponse extends HttpServletResponseWrapper {

	private final IntConsumer committing;

	private boolean told;

	private long contentLength = -1;

	private long written;

	private @Nullable ServletOutputStream stream;

	private @Nullable PrintWriter writer;

	/**
	 * Creates the response.
	 * @param response the container's response
	 * @param committing told the status once, just before the response commits
	 */
	CommitWatchingResponse(HttpServletResponse response, IntConsumer committing) {
		super(response);
		this.committing = committing;
	}

	/** Tells the status about to be committed, the first time only. */
	private void committing(int status) {
		boolean first;
		synchronized (this) {
			first = !this.told;
			this.told = true;
		}
		if (first && !getResponse().isCommitted()) {
			this.committing.accept(status);
		}
	}

	private void committing() {
		committing(getStatus());
	}

	/** Counts bytes about to be written, telling the commit first when they would fill the buffer. */
	private void writing(long bytes) {
		boolean commits;
		synchronized (this) {
			if (this.told) {
				return;
			}
			this.written += bytes;
			commits = this.written >= getBufferSize() || (this.contentLength >= 0 && this.written >= this.contentLength);
		}
		if (commits) {
			committing();
		}
	}

	@Override
	public void flushBuffer() throws IOException {
		committing();
		super.flushBuffer();
	}

	@Override
	public void sendError(int sc) throws IOException {
		committing(sc);
		super.sendError(sc);
	}

	@Override
	public void sendError(int sc, @Nullable String msg) throws IOException {
		committing(sc);
		super.sendError(sc, msg);
	}

	@Override
	public void sendRedirect(String location) throws IOException {
		committing(SC_FOUND);
		super.sendRedirect(location);
	}

	@Override
	public void sendRedirect(String location, boolean clearBuffer) throws IOException {
		committing(SC_FOUND);
		super.sendRedirect(location, clearBuffer);
	}

	@Override
	public void sendRedirect(String location, int sc) throws IOException {
		committing(sc);
		super.sendRedirect(location, sc);
	}

	@Override
	public void sendRedirect(String location, int sc, boolean clearBuffer) throws IOException {
		committing(sc);
		super.sendRedirect(location, sc, clearBuffer);
	}

	@Override
	public void setContentLength(int len) {
		setContentLengthLong(len);
	}

	@Override
	public void setContentLengthLong(long len) {
		synchronized (this) {
			this.contentLength = len;
		}
		super.setContentLengthLong(len);
	}

	@Override
	public void setHeader(String name, @Nullable String value) {
		contentLengthHeader(name, value);
		super.setHeader(name, value);
	}

	@Override
	public void addHeader(String name, @Nullable String value) {
		contentLengthHeader(name, value);
		super.addHeader(name, value);
	}

	@Override
	public void setIntHeader(String name, int value) {
		contentLengthHeader(name, Integer.toString(value));
		super.setIntHeader(name, value);
	}

	@Override
	public void addIntHeader(String name, int value) {
		contentLengthHeader(name, Integer.toString(value));
		super.addIntHeader(name, value);
	}

	private void contentLengthHeader(String name, @Nullable String value) {
		if ("content-length".equals(name.toLowerCase(Locale.ROOT))) {
			long length = -1;
			try {
				length = (value != null) ? Long.parseLong(value.strip()) : -1;
			}
			catch (NumberFormatException ex) {
				// not a length: the container will not commit on it either
			}
			synchronized (this) {
				this.contentLength = length;
			}
		}
	}

	@Override
	public void reset() {
		super.reset();
		synchronized (this) {
			this.written = 0;
			this.contentLength = -1;
		}
	}

	@Override
	public void resetBuffer() {
		super.resetBuffer();
		synchronized (this) {
			this.written = 0;
		}
	}

	@Override
	public ServletOutputStream getOutputStream() throws IOException {
		ServletOutputStream out = this.stream;
		if (out == null) {
			out = new WatchedStream(super.getOutputStream());
			this.stream = out;
		}
		return out;
	}

	@Override
	public PrintWriter getWriter() throws IOException {
		PrintWriter out = this.writer;
		if (out == null) {
			out = new WatchedWriter(super.getWriter(), maxBytesPerChar(getCharacterEncoding()));
			this.writer = out;
		}
		return out;
	}

	private static int maxBytesPerChar(@Nullable String encoding) {
		try {
			Charset charset = (encoding != null) ? Charset.forName(encoding) : Charset.defaultCharset();
			return (int) Math.ceil(charset.newEncoder().maxBytesPerChar());
		}
		catch (IllegalCharsetNameException | UnsupportedCharsetException | UnsupportedOperationException ex) {
			return 4;
		}
	}

	/** The body as bytes, counted. */
	private final class WatchedStream extends ServletOutputStream {

		private final ServletOutputStream delegate;

		WatchedStream(ServletOutputStream delegate) {
			this.delegate = delegate;
		}

		@Override
		public void write(int b) throws IOException {
			writing(1);
			this.delegate.write(b);
		}

		@Override
		public void write(byte[] b, int off, int len) throws IOException {
			writing(len);
			this.delegate.write(b, off, len);
		}

		@Override
		public void write(ByteBuffer buffer) throws IOException {
			writing(buffer.remaining());
			this.delegate.write(buffer);
		}

		@Override
		public void flush() throws IOException {
			committing();
			this.delegate.flush();
		}

		@Override
		public void close() throws IOException {
			committing();
			this.delegate.close();
		}

		@Override
		public boolean isReady() {
			return this.delegate.isReady();
		}

		@Override
		public void setWriteListener(WriteListener listener) {
			this.delegate.setWriteListener(listener);
		}

	}

	/** The body as characters, counted at the most bytes one takes. */
	private final class WatchedWriter extends PrintWriter {

		private final int bytesPerChar;

		WatchedWriter(PrintWriter delegate, int bytesPerChar) {
			super(delegate);
			this.bytesPerChar = bytesPerChar;
		}

		@Override
		public void write(int c) {
			writing(this.bytesPerChar);
			super.write(c);
		}

		@Override
		public void write(char[] buf, int off, int len) {
			writing((long) len * this.bytesPerChar);
			super.write(buf, off, len);
		}

		@Override
		public void write(String s, int off, int len) {
			writing((long) len * this.bytesPerChar);
			super.write(s, off, len);
		}

		@Override
		public void flush() {
			committing();
			super.flush();
		}

		@Override
		public void close() {
			committing();
			super.close();
		}

	}

}
