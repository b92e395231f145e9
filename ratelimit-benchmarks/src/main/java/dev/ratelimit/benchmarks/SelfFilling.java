package dev.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A contender that fills its keys with its own calls, from a few threads.
 */
final class SelfFilling implements Contender {

	private final String[] keys;

	private final Decision decision;

	private final Runnable close;

	SelfFilling(String[] keys, Decision decision, Runnable close) {
		this.keys = keys;
		this.decision = decision;
		this.close = close;
	}

	@Override
	public boolean tryAcquire(int keyIndex) {
		return this.decision.decide(keyIndex);
	}

	@Override
	public void prefill() {
		ExecutorService pool = Executors.newFixedThreadPool(16);
		try {
			List<Future<?>> parts = new ArrayList<>();
			for (int part = 0; part < 16; part++) {
				int first = part;
				parts.add(pool.submit(() -> {
					for (int i = first; i < this.keys.length; i += 16) {
						this.decision.decide(i);
					}
				}));
			}
			for (Future<?> part : parts) {
				part.get();
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not pre-fill the keys", ex);
		}
		finally {
			pool.shutdown();
		}
	}

	@Override
	public void close() {
		this.close.run();
	}

	/**
	 * A decision for a key index.
	 */
	@FunctionalInterface
	interface Decision {

		boolean decide(int keyIndex);

	}

}
