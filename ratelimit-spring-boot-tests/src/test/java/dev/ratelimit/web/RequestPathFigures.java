package dev.ratelimit.web;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatchers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A figure of docs/architecture.md, not a test (surefire runs it only when named:
 * {@code -Dtest=RequestPathFigures}): the main source files whose code runs for one allowed request on each stack
 * (one rule by path, keyed by client address; the application warmed up by a first request), and their packages.
 * Every method of a main class of {@code dev.ratelimit} is instrumented to record its class.
 */
class RequestPathFigures {

	private static final StackApps apps = new StackApps(Map.of("ratelimit.rules.figures.paths", "/figures",
			"ratelimit.rules.figures.limit", "1000000", "ratelimit.rules.figures.window", "1h"), Hello.class);

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void filesCrossedByOneAllowedRequest(WebStack stack) {
		StackApp app = apps.on(stack);
		Instrumentation instrumentation = ByteBuddyAgent.install();
		new AgentBuilder.Default().disableClassFormatChanges()
			.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
			.ignore(ElementMatchers.not(ElementMatchers.nameStartsWith("dev.ratelimit.")))
			.type(ElementMatchers.nameStartsWith("dev.ratelimit.")
				.and(ElementMatchers.not(ElementMatchers.nameContains("Tests")))
				.and(ElementMatchers.not(ElementMatchers.nameContains("RequestPathFigures"))))
			.transform((builder, type, loader, module, domain) -> builder
				.visit(Advice.to(Seen.class).on(ElementMatchers.isMethod().or(ElementMatchers.isConstructor()))))
			.installOn(instrumentation);
		assertThat(app.get("/figures").status()).isEqualTo(200);
		Seen.TYPES.clear();
		Seen.on = true;
		assertThat(app.get("/figures").status()).isEqualTo(200);
		Seen.on = false;
		Map<String, Set<String>> files = new TreeMap<>();
		for (String type : Seen.TYPES) {
			String outer = type.replaceFirst("\\$.*", "");
			if (mainClass(outer)) {
				files.computeIfAbsent(outer.substring(0, outer.lastIndexOf('.')), (pkg) -> new TreeSet<>())
					.add(outer.substring(outer.lastIndexOf('.') + 1));
			}
		}
		int count = files.values().stream().mapToInt(Set::size).sum();
		StringBuilder report = new StringBuilder("FIGURE " + stack + ": " + count + " main files in " + files.size()
				+ " packages crossed by one allowed request\n");
		files.forEach((pkg, names) -> report.append("  ").append(pkg).append(": ").append(names).append('\n'));
		System.out.println(report);
		assertThat(count).isPositive();
	}

	private static boolean mainClass(String name) {
		try {
			Class<?> type = Class.forName(name, false, RequestPathFigures.class.getClassLoader());
			String location = String.valueOf(type.getProtectionDomain().getCodeSource().getLocation());
			return !location.contains("test-classes") && !location.contains("ratelimit-test-support");
		}
		catch (ClassNotFoundException | RuntimeException ex) {
			return false;
		}
	}

	/** Records the class of every method that runs while on. */
	public static final class Seen {

		public static final Set<String> TYPES = ConcurrentHashMap.newKeySet();

		public static volatile boolean on;

		@Advice.OnMethodEnter
		public static void enter(@Advice.Origin("#t") String type) {
			if (on) {
				TYPES.add(type);
			}
		}

	}

	@RestController
	static class Hello {

		@GetMapping("/figures")
		String figures() {
			return "ok";
		}

	}

}
