package dev.ratelimit.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The applications and targets of {@link HttpCost}: which class path each stack gets, which rules and routes each
 * application is started with, and which path of which application each target loads.
 */
final class HttpApps {

	private HttpApps() {
	}

	/** A web stack, which decides what of the benchmarks' class path an application gets. */
	enum Stack {

		SERVLET("servlet", List.of("spring-webflux-", "spring-boot-webflux-", "spring-boot-starter-webflux-",
				"spring-boot-reactor-netty-", "spring-boot-starter-reactor-netty-", "reactor-netty-", "spring-cloud-",
				"ratelimit-spring-cloud-gateway-")),

		REACTIVE("webflux", List.of("spring-webmvc-", "spring-boot-webmvc-", "spring-boot-starter-webmvc-", "spring-boot-tomcat-",
				"spring-boot-starter-tomcat-", "tomcat-embed-", "spring-cloud-", "ratelimit-spring-cloud-gateway-")),

		/**
		 * WebFlux again, on one server event loop with Lettuce on it: the starter's connection through
		 * {@code ratelimit.lettuce.shared-event-loops}, the hand-made call's client through {@code -Dbench.shared-loops}.
		 */
		REACTIVE_SHARED("webflux-shared", REACTIVE.excluded),

		GATEWAY("gateway", List.of("spring-webmvc-", "spring-boot-webmvc-", "spring-boot-starter-webmvc-", "spring-boot-tomcat-",
				"spring-boot-starter-tomcat-", "tomcat-embed-"));

		private final String label;

		private final List<String> excluded;

		Stack(String label, List<String> excluded) {
			this.label = label;
			this.excluded = excluded;
		}

		String label() {
			return this.label;
		}

	}

	/** The benchmarks' own jars (JMH, the peers, Redisson's own dependencies, test support), which no application has. */
	private static final List<String> BENCHMARKS_ONLY = List.of("jmh-", "jopt-simple-", "commons-math3-", "bucket4j",
			"redisson-", "jodd-", "kryo-", "minlog-", "reflectasm-", "objenesis-", "rxjava-", "byte-buddy-", "cache-api-",
			"gson-", "ratelimit-test-support-", "embedded-redis-");

	/**
	 * Returns the jars an application of a stack gets: the benchmarks' compile and provided jars, less those of the
	 * other stacks, less the benchmarks' own, less ratelimit's when it runs without the starter.
	 * @param jars the benchmarks' jars
	 * @param stack the stack
	 * @param starter whether with the starter
	 * @return the jars
	 */
	static List<String> classpath(List<String> jars, Stack stack, boolean starter) {
		List<String> kept = new ArrayList<>();
		for (String jar : jars) {
			String name = Path.of(jar).getFileName().toString();
			boolean drop = stack.excluded.stream().anyMatch(name::startsWith)
					|| BENCHMARKS_ONLY.stream().anyMatch(name::startsWith) || (!starter && name.startsWith("ratelimit-"));
			if (!drop) {
				kept.add(jar);
			}
		}
		return kept;
	}

	/** The JVM options of the {@link Stack#REACTIVE_SHARED} applications: one server event loop, Lettuce on it. */
	private static final List<String> SHARED_LOOPS = List.of("-Dreactor.netty.ioWorkerCount=1", "-Dbench.shared-loops=true");

	/** How many permits the hot key's rule takes at once. */
	static final int HOT_PREFETCH = 100;

	/**
	 * The rules of the servlet and WebFlux applications with the starter: one on /limited, three on /three, and on /hot
	 * one keyed by the client address, which is the load's one address: a hot key, its permits taken 100 at a time.
	 */
	private static final List<String> RULES = List.of("--ratelimit.rules.one.paths=/limited",
			"--ratelimit.rules.one.key=header:X-Api-Key", "--ratelimit.rules.one.limit=1000000000",
			"--ratelimit.rules.one.window=1h", "--ratelimit.rules.three-a.paths=/three",
			"--ratelimit.rules.three-a.key=header:X-Api-Key", "--ratelimit.rules.three-a.limit=1000000000",
			"--ratelimit.rules.three-a.window=1h", "--ratelimit.rules.three-b.paths=/three",
			"--ratelimit.rules.three-b.key=ip", "--ratelimit.rules.three-b.limit=1000000000",
			"--ratelimit.rules.three-b.window=1h", "--ratelimit.rules.three-c.paths=/three",
			"--ratelimit.rules.three-c.key=header:X-Api-Key", "--ratelimit.rules.three-c.limit=1000000000",
			"--ratelimit.rules.three-c.window=1m", "--ratelimit.rules.hot.paths=/hot", "--ratelimit.rules.hot.key=ip",
			"--ratelimit.rules.hot.limit=1000000000", "--ratelimit.rules.hot.window=1h",
			"--ratelimit.rules.hot.prefetch=" + HOT_PREFETCH);

	/**
	 * Returns every application: servlet and WebFlux without the starter and with it, the gateway with ratelimit's
	 * route filter, and the gateway with Spring Cloud Gateway's own {@code RedisRateLimiter} (without ratelimit).
	 * @param upstreamPort the gateway's upstream
	 * @return the applications
	 */
	static List<App> all(int upstreamPort) {
		List<String> tomcat = List.of("--server.tomcat.max-keep-alive-requests=-1");
		String servlet = "dev.ratelimit.benchmarks.apps.servlet.ServletApp";
		String reactive = "dev.ratelimit.benchmarks.apps.reactive.ReactiveApp";
		String gateway = "dev.ratelimit.benchmarks.apps.gateway.GatewayApp";
		String routes = "--spring.cloud.gateway.server.webflux.routes";
		List<String> open = List.of(routes + "[0].id=open", routes + "[0].uri=http://127.0.0.1:" + upstreamPort,
				routes + "[0].predicates[0]=Path=/open", routes + "[1].id=limited",
				routes + "[1].uri=http://127.0.0.1:" + upstreamPort, routes + "[1].predicates[0]=Path=/limited",
				routes + "[1].filters[0].name=RequestRateLimiter",
				routes + "[1].filters[0].args[key-resolver]=#{@apiKeyResolver}");
		String args = routes + "[1].filters[0].args";
		// the same token bucket for both: a million a second, a million at once
		List<String> ours = List.of(args + "[ratelimit.algorithm]=token-bucket", args + "[ratelimit.limit]=1000000",
				args + "[ratelimit.window]=1s", args + "[ratelimit.burst]=1000000");
		List<String> theirs = List.of(args + "[redis-rate-limiter.replenishRate]=1000000",
				args + "[redis-rate-limiter.burstCapacity]=1000000", args + "[redis-rate-limiter.requestedTokens]=1");
		return List.of(new App("servlet-plain", servlet, Stack.SERVLET, false, tomcat),
				new App("servlet", servlet, Stack.SERVLET, true, concat(tomcat, RULES)),
				new App("webflux-plain", reactive, Stack.REACTIVE, false, List.of()),
				new App("webflux", reactive, Stack.REACTIVE, true, RULES),
				new App("webflux-shared-plain", reactive, Stack.REACTIVE_SHARED, false, List.of(), SHARED_LOOPS),
				new App("webflux-shared", reactive, Stack.REACTIVE_SHARED, true,
						concat(RULES, List.of("--ratelimit.lettuce.shared-event-loops=true")), SHARED_LOOPS),
				new App("gateway", gateway, Stack.GATEWAY, true, concat(open, ours)),
				new App("gateway-scg", gateway, Stack.GATEWAY, false, concat(open, theirs)));
	}

	/**
	 * Returns the applications by stack, in the order {@link #all} gives them.
	 * @param upstreamPort the gateway's upstream
	 * @return the applications of each stack
	 */
	static List<List<App>> groups(int upstreamPort) {
		Map<Stack, List<App>> groups = new java.util.EnumMap<>(Stack.class);
		for (App app : all(upstreamPort)) {
			groups.computeIfAbsent(app.stack(), (stack) -> new ArrayList<>()).add(app);
		}
		return List.copyOf(groups.values());
	}

	/**
	 * Returns the targets, in the order each round measures them.
	 * @param apps the running applications, as {@link #all} lists them
	 * @return the targets
	 */
	static List<Target> targets(List<Running> apps) {
		List<Target> targets = new ArrayList<>();
		for (Running app : apps) {
			boolean gateway = app.app().stack() == Stack.GATEWAY;
			targets.add(new Target(app.app().name() + " /open", app, "/open", false));
			if (!app.app().starter() && !gateway) {
				// the rule's Redis call made by hand in the handler: what a Redis call costs the stack
				targets.add(new Target(app.app().name() + " /redis", app, "/redis", false));
			}
			if (app.app().starter() || gateway) {
				targets.add(new Target(app.app().name() + " /limited", app, "/limited", true));
			}
			if (app.app().starter() && !gateway) {
				targets.add(new Target(app.app().name() + " /three", app, "/three", true));
				targets.add(new Target(app.app().name() + " /hot", app, "/hot", true));
			}
		}
		return targets;
	}

	private static List<String> concat(List<String> first, List<String> second) {
		List<String> all = new ArrayList<>(first);
		all.addAll(second);
		return all;
	}

	/** An application of the scenario, with the JVM options it is started with. */
	record App(String name, String mainClass, Stack stack, boolean starter, List<String> arguments,
			List<String> jvmArguments) {

		App(String name, String mainClass, Stack stack, boolean starter, List<String> arguments) {
			this(name, mainClass, stack, starter, arguments, List.of());
		}

	}

	/** An application started, with its process and port. */
	record Running(App app, Process process, int port) {
	}

	/** A path of a running application, loaded by {@link ClosedLoopLoad}. */
	record Target(String label, Running app, String path, boolean limited) {

		ClosedLoopLoad.Result load(Duration duration) {
			return new ClosedLoopLoad(this.app.port(), ClosedLoopLoad.requests(this.app.port(), this.path, 1000),
					HttpCost.CONNECTIONS).run(duration.toNanos());
		}

		/** Fails unless the path answers 200, with rate-limit headers when a rule covers it and without otherwise. */
		void check() throws InterruptedException {
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			try (KeepAliveClient client = new KeepAliveClient(this.app.port())) {
				while (true) {
					KeepAliveClient.Response response = client.get(this.path, "check");
					boolean headers = response.headers().contains("ratelimit") || response.headers().contains("x-ratelimit-remaining");
					if (response.status() == 200 && headers == this.limited) {
						return;
					}
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException(this.label + " answered " + response.status() + " with headers "
								+ response.headers() + (this.limited ? ", expected rate-limit headers" : ", expected none"));
					}
					Thread.sleep(200);
				}
			}
		}

		Map<String, Object> describe() {
			return Measurements.row("label", this.label, "application", this.app.app().name(), "mainClass",
					this.app.app().mainClass(), "starter", this.app.app().starter(), "path", this.path, "limited",
					this.limited, "arguments", this.app.app().arguments());
		}

	}

}
