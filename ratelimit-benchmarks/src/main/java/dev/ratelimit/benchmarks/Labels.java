package dev.ratelimit.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The systems of the JMH tables, in the order of the tables, with the names the report gives them.
 */
final class Labels {

	/** Our O(1) algorithms, whose targets the report checks. */
	static final List<String> O1 = List.of("fixed-window", "sliding-window-counter", "token-bucket", "gcra");

	private static final Map<String, String> LABELS = new LinkedHashMap<>();

	static {
		LABELS.put("fixed-window", "ours: fixed window");
		LABELS.put("sliding-window-log", "ours: sliding window log");
		LABELS.put("sliding-window-counter", "ours: sliding window counter");
		LABELS.put("token-bucket", "ours: token bucket");
		LABELS.put("gcra", "ours: GCRA");
		LABELS.put("seed-fixed-window", "seed: fixed window");
		LABELS.put("seed-sliding-window-log", "seed: sliding window log");
		LABELS.put("bucket4j", "Bucket4j 8.19 (Lettuce, CAS)");
		LABELS.put("redisson", "Redisson 4.7 RRateLimiter");
		LABELS.put(Contenders.LETTUCE_EVALSHA, "no limiter: Lettuce EVALSHA, fixed-window script");
	}

	private Labels() {
	}

	/** Returns every system of the JMH tables, in their order. */
	static Set<String> systems() {
		return LABELS.keySet();
	}

	/** Returns the name of a system in the tables, such as {@code ours: fixed window}. */
	static String of(String system) {
		return LABELS.get(system);
	}

	/** Returns the name of our limiter's asynchronous API from one thread in the tables. */
	static String async(String system) {
		return of(system).replace("ours: ", "ours async, one thread: ");
	}

	/** Returns the shorter name of a system under the chart's bars. */
	static String chart(String system) {
		return of(system).replace("no limiter: Lettuce EVALSHA, fixed-window script", "no limiter: Lettuce EVALSHA")
			.replace(" (Lettuce, CAS)", "")
			.replace(" RRateLimiter", "");
	}

}
