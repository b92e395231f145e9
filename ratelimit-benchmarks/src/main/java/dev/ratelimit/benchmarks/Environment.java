package dev.ratelimit.benchmarks;

import java.time.LocalDate;

/**
 * What the report says of the run that is not in its results: when it ran, for how long, on what machine and
 * software.
 *
 * @param date the day of the report
 * @param seconds how long the run took so far
 * @param machine the machine ({@link Machine#describe()})
 * @param loadBefore the load average when the run started
 * @param loadAfter the load average when the report was written
 * @param java the Java version and VM, such as {@code 17.0.15 (OpenJDK 64-Bit Server VM)}
 * @param lettuce Lettuce's version, or "?"
 * @param springDataRedis Spring Data Redis's version, or "?"
 */
record Environment(LocalDate date, long seconds, String machine, String loadBefore, String loadAfter, String java,
		String lettuce, String springDataRedis) {

	/** Returns this machine and JVM now, after a run of {@code seconds}; {@code -Dbench.loadBefore} gives the load at its start. */
	static Environment current(long seconds) {
		return new Environment(LocalDate.now(), seconds, Machine.describe(), System.getProperty("bench.loadBefore", "?"),
				Machine.loadAverage(), System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")",
				versionOf(io.lettuce.core.RedisClient.class),
				versionOf(org.springframework.data.redis.core.StringRedisTemplate.class));
	}

	/** The version in a library's jar manifest, or "?" where it has none. */
	private static String versionOf(Class<?> type) {
		String version = type.getPackage().getImplementationVersion();
		return (version != null) ? version : "?";
	}

}
