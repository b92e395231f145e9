package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Other processes that keep every CPU of the machine busy while a test runs: busy loops of {@code sh}, two per CPU,
 * stopped by their process handles when closed.
 */
final class BusyCpus implements AutoCloseable {

	private final List<Process> loops = new ArrayList<>();

	private BusyCpus() {
	}

	/** Starts two busy loops per CPU. */
	static BusyCpus start() {
		BusyCpus busy = new BusyCpus();
		try {
			for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors(); i++) {
				busy.loops.add(new ProcessBuilder("sh", "-c", "while :; do :; done").redirectErrorStream(true).start());
			}
		}
		catch (IOException ex) {
			busy.close();
			throw new UncheckedIOException(ex);
		}
		return busy;
	}

	@Override
	public void close() {
		for (Process loop : this.loops) {
			loop.destroyForcibly();
		}
		for (Process loop : this.loops) {
			loop.onExit().join();
		}
	}

}
