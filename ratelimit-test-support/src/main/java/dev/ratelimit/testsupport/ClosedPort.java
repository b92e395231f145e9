package dev.ratelimit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * Ports of 127.0.0.1 where nothing listens and nothing else can start listening while the JVM runs:
 * a connection to one is refused at once. For tests of what happens when Redis refuses connections.
 */
public final class ClosedPort {

	// bound, never listening: the kernel refuses connections and keeps the port from other processes
	private static final List<Socket> reserved = new ArrayList<>();

	private ClosedPort() {
	}

	/**
	 * Reserves a port on 127.0.0.1 that refuses connections until the JVM exits.
	 * @return the port
	 */
	public static synchronized int reserve() {
		Socket socket = new Socket();
		try {
			socket.setReuseAddress(false);
			socket.bind(new InetSocketAddress(InetAddress.getByName(RedisServerProcess.HOST), 0));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		reserved.add(socket);
		return socket.getLocalPort();
	}

}
