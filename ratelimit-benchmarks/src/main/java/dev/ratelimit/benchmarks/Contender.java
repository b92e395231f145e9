package dev.ratelimit.benchmarks;

/**
 * One rate-limiting system under test, set up over a fixed array of keys: one decision per call.
 */
public interface Contender extends AutoCloseable {

	/**
	 * Decides one request for a key.
	 * @param keyIndex the key's index in the array the contender was made with
	 * @return whether the request is allowed
	 */
	boolean tryAcquire(int keyIndex);

	/**
	 * Makes every key exist in Redis, as after its first request, so that a measurement sees warm keys.
	 */
	void prefill();

	/**
	 * Releases the contender's connections.
	 */
	@Override
	void close();

}
