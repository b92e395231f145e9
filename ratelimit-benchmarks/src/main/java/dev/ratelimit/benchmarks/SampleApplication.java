package dev.ratelimit.benchmarks;

import java.nio.file.Path;
import java.util.List;

/**
 * A sample application under load: the rule and the endpoints the scenario needs, set up by
 * command-line arguments over the application's own configuration.
 *
 * @param name the application, for the log file and the results
 * @param jar its executable jar
 * @param rulePath a path with a rule keyed by {@code X-Api-Key}, whose limit is never reached
 * @param noRulePath a path with no rule
 * @param arguments the arguments that set the rules up, besides the port, address and Redis URL
 */
record SampleApplication(String name, Path jar, String rulePath, String noRulePath, List<String> arguments) {

	/**
	 * Returns the servlet sample: the partner rule (per {@code X-Api-Key}) with a limit never
	 * reached, the greeting rule moved away, its own embedded Redis off.
	 * @param jar the sample-app jar
	 * @return the application
	 */
	static SampleApplication servlet(Path jar) {
		return new SampleApplication("sample-app", jar, "/api/partner/quote", "/api/greeting",
				List.of("--sample.embedded-redis.enabled=false", "--ratelimit.rules.partner.limit=100000000",
						"--ratelimit.rules.partner.window=1h", "--ratelimit.rules.greeting.paths=/bench/unused"));
	}

	/**
	 * Returns the WebFlux sample set up as the servlet one: its tenant rule keyed by
	 * {@code X-Api-Key} (the sample reads {@code X-Tenant} through a key-resolver bean) with a limit
	 * never reached, the greeting rule moved away, its own embedded Redis off.
	 * @param jar the sample-webflux jar
	 * @return the application
	 */
	static SampleApplication webflux(Path jar) {
		return new SampleApplication("sample-webflux", jar, "/api/tenant/orders", "/api/greeting",
				List.of("--sample.embedded-redis.enabled=false", "--ratelimit.rules.tenant.key=header:X-Api-Key",
						"--ratelimit.rules.tenant.limit=100000000", "--ratelimit.rules.tenant.window=1h",
						"--ratelimit.rules.greeting.paths=/bench/unused"));
	}

}
