package dev.ratelimit;

import java.util.List;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import dev.ratelimit.method.RateLimitCurrentRequest;
import dev.ratelimit.method.ReactiveRateLimitCurrentRequest;
import dev.ratelimit.rules.internal.RateLimitEngine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The module rules of docs/architecture.md: each technology's runtime module ({@code ratelimit-webmvc},
 * {@code -webflux}, {@code -grpc}, {@code -client}, {@code -method}, {@code ratelimit-spring-ai}) uses of the engine only its SPI and its model,
 * needs no Spring Boot and knows no other technology; the engine's auto-configuration knows no technology, each
 * technology's auto-configuration only its own runtime; the Boot module builds the engine with
 * {@link RateLimitEngine#builder} and uses no other type of {@code dev.ratelimit.rules.internal}. Over the main
 * classes of every module on this module's class path (the gateway module has its own rules).
 */
class ModuleArchitectureTests {

	private static final JavaClasses classes = new ClassFileImporter()
		.withImportOption((location) -> !location.contains("/test-classes"))
		.importPackages("dev.ratelimit");

	/** Each runtime module's packages, by module. */
	private static final List<List<String>> RUNTIMES = List.of(List.of("dev.ratelimit.web.servlet.."),
			List.of("dev.ratelimit.web.reactive.."), List.of("dev.ratelimit.grpc.."), List.of("dev.ratelimit.client.."),
			List.of("dev.ratelimit.method.."), List.of("dev.ratelimit.ai.."));

	private static final String[] RUNTIME_PACKAGES = RUNTIMES.stream().flatMap(List::stream).toArray(String[]::new);

	/** Each technology's auto-configuration package, in the order of {@link #RUNTIMES}. */
	private static final List<String> AUTO_CONFIGURATIONS = List.of("dev.ratelimit.autoconfigure.webmvc",
			"dev.ratelimit.autoconfigure.webflux", "dev.ratelimit.autoconfigure.grpc", "dev.ratelimit.autoconfigure.client",
			"dev.ratelimit.autoconfigure.method", "dev.ratelimit.autoconfigure.ai");

	/**
	 * What a technology that serves calls tells the bean-method entry point: the call a limited method is called in,
	 * for its keys. Each stack's auto-configuration registers one.
	 */
	private static final Class<?>[] CALLS_IN_FLIGHT = { RateLimitCurrentRequest.class,
			ReactiveRateLimitCurrentRequest.class };

	@Test
	void readsEveryRuntimeModule() {
		// a rule over a package without classes would hold whatever the code does
		for (String runtime : RUNTIME_PACKAGES) {
			String name = runtime.substring(0, runtime.length() - 2);
			assertThat(classes.stream().anyMatch((type) -> type.getPackageName().startsWith(name))).as(name).isTrue();
		}
		for (String configuration : AUTO_CONFIGURATIONS) {
			assertThat(classes.stream().anyMatch((type) -> type.getPackageName().equals(configuration)))
				.as(configuration)
				.isTrue();
		}
	}

	@Test
	void runtimeModulesUseOnlyTheEnginesSpiAndModel() {
		noClasses().that()
			.resideInAnyPackage(RUNTIME_PACKAGES)
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.ratelimit.rules.internal..", "dev.ratelimit.redis..", "dev.ratelimit.autoconfigure..",
					"dev.ratelimit.actuate..")
			.because("an entry point drives the engine through dev.ratelimit.rules.flow and reads the model; the Boot "
					+ "module assembles the engine")
			.check(classes);
	}

	@Test
	void noRuntimeModuleNeedsSpringBoot() {
		noClasses().that()
			.resideInAnyPackage(RUNTIME_PACKAGES)
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework.boot..")
			.because("a technology's runtime works with its framework alone; Spring Boot is the auto-configuration's")
			.check(classes);
	}

	@Test
	void noRuntimeModuleKnowsAnotherTechnology() {
		for (List<String> runtime : RUNTIMES) {
			String[] others = RUNTIMES.stream()
				.filter((other) -> other != runtime)
				.flatMap(List::stream)
				.toArray(String[]::new);
			noClasses().that()
				.resideInAnyPackage(runtime.toArray(String[]::new))
				.should()
				.dependOnClassesThat()
				.resideInAnyPackage(others)
				.because("each technology is a module of its own on the engine's SPI")
				.check(classes);
		}
	}

	@Test
	void theEnginesAutoConfigurationKnowsNoTechnology() {
		noClasses().that()
			.resideInAPackage("dev.ratelimit.autoconfigure")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(concat(RUNTIME_PACKAGES, "dev.ratelimit.actuate..", "jakarta.servlet..",
					"org.springframework.web.servlet..", "org.springframework.web.reactive..", "io.grpc..",
					"org.springframework.grpc.."))
			.because("each technology's auto-configuration contributes what the engine needs of it (RateLimitStack)")
			.check(classes);
	}

	@Test
	void eachTechnologysAutoConfigurationUsesOnlyItsOwnRuntime() {
		for (int i = 0; i < AUTO_CONFIGURATIONS.size(); i++) {
			List<String> own = RUNTIMES.get(i);
			String[] others = RUNTIMES.stream()
				.filter((other) -> other != own)
				.flatMap(List::stream)
				.toArray(String[]::new);
			noClasses().that()
				.resideInAPackage(AUTO_CONFIGURATIONS.get(i))
				.should()
				.dependOnClassesThat(JavaClass.Predicates.resideInAnyPackage(others)
					.and(DescribedPredicate.not(JavaClass.Predicates.belongToAnyOf(CALLS_IN_FLIGHT))))
				.because("a technology's auto-configuration is conditional on its own runtime module only (it tells "
						+ "the bean-method entry point the call a method is called in)")
				.check(classes);
		}
	}

	@Test
	void theBootModuleAssemblesTheEngineThroughItsBuilderAlone() {
		noClasses().that()
			.resideInAnyPackage("dev.ratelimit.autoconfigure..", "dev.ratelimit.actuate..")
			.should()
			.dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.ratelimit.rules.internal..")
				.and(DescribedPredicate.not(JavaClass.Predicates.belongToAnyOf(RateLimitEngine.class))))
			.because("the engine is built by RateLimitEngine.builder() and read through dev.ratelimit.rules.flow; "
					+ "every other type of dev.ratelimit.rules.internal is the engine's own")
			.check(classes);
	}

	private static String[] concat(String[] first, String... more) {
		String[] all = new String[first.length + more.length];
		System.arraycopy(first, 0, all, 0, first.length);
		System.arraycopy(more, 0, all, first.length, more.length);
		return all;
	}

}
