package dev.ratelimit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A server on 127.0.0.1 that accepts connections and never answers: a Redis that hangs. Closing it
 * closes every connection it accepted.
 */
public final class SilentServer implements AutoCloseable {

	private final ServerSocket socket;

	private final List<Socket> accepted = new CopyOnWriteArrayList<>();

	private SilentServer(ServerSocket socket) {
		this.socket = socket;
	}

	/**
	 * Starts a silent server on a free port.
	 * @return the server
	 */
	public static SilentServer start() {
		try {
			SilentServer server = new SilentServer(
					new ServerSocket(0, 50, InetAddress.getByName(RedisServerProcess.HOST)));
			Thread acceptor = new Thread(server::accept, "silent-server-" + server.port());
			acceptor.setDaemon(true);
			acceptor.start();
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void accept() {
		try {
			while (!this.socket.isClosed()) {
				this.accepted.add(this.socket.accept());
			}
		}
		catch (IOException ex) {
			// closed
		}
	}

	/**
	 * Returns the port it listens on.
	 * @return the port
	 */
	public int port() {
		return this.socket.getLocalPort();
	}

	@Override
	public void close() {
		try {
			this.socket.close();
			for (Socket connection : this.accepted) {
				connection.close();
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
