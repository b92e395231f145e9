package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.time.LocalDate;
import java.util.Properties;

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
				versionOf(io.lettuce.core.RedisClient.class, "io.lettuce/lettuce-core"),
				versionOf(org.springframework.data.redis.core.StringRedisTemplate.class, "org.springframework.data/spring-data-redis"));
	}

	/**
	 * The version in a library's jar manifest or, in the shaded benchmarks jar (whose manifest is its own), in the
	 * {@code pom.properties} Maven left in the library's jar; "?" where neither says.
	 */
	private static String versionOf(Class<?> type, String artifact) {
		String version = type.getPackage().getImplementationVersion();
		if (version != null) {
			return version;
		}
		try (InputStream in = type.getClassLoader().getResourceAsStream("META-INF/maven/" + artifact + "/pom.properties")) {
			if (in != null) {
				Properties pom = new Properties();
				pom.load(in);
				return pom.getProperty("version", "?");
			}
		}
		catch (IOException ex) {
			// named as unknown below
		}
		return "?";
	}

}
