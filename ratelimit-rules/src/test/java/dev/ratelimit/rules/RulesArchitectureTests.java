package dev.ratelimit.rules;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package rules of docs/architecture.md that the rule engine's module keeps by itself: no Spring Boot, no web
 * stack, no gRPC, and no package cycle.
 */
class RulesArchitectureTests {

	// main classes only: the tests' directories are target/test-classes, or test-classes-spring-boot-4.0
	private static final JavaClasses classes = new ClassFileImporter()
		.withImportOption((location) -> !location.contains("/test-classes"))
		.importPackages("dev.ratelimit.rules");

	@Test
	void readsTheClassesOfEveryPackage() {
		// a rule over no classes would hold whatever the code does
		assertThat(classes.contain("dev.ratelimit.rules.RateLimitRule")).isTrue();
		assertThat(classes.contain("dev.ratelimit.rules.flow.RateLimitFlow")).isTrue();
		assertThat(classes.contain("dev.ratelimit.rules.internal.RateLimitEnforcer")).isTrue();
		assertThat(classes.stream().filter((javaClass) -> javaClass.getSimpleName().endsWith("Tests"))).isEmpty();
	}

	@Test
	void knowsNoSpringBootNoWebStackAndNoGrpc() {
		noClasses().that()
			.resideInAPackage("dev.ratelimit.rules..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.boot..", "jakarta.servlet..", "org.springframework.web.servlet..",
					"org.springframework.web.server..", "org.springframework.web.reactive..",
					"org.springframework.http.server.reactive..", "org.springframework.http.client.reactive..",
					"reactor.netty..", "io.grpc..", "org.springframework.grpc..", "org.springframework.cloud..",
					"dev.ratelimit.web..", "dev.ratelimit.autoconfigure..", "dev.ratelimit.actuate..",
					"dev.ratelimit.method..", "dev.ratelimit.grpc..", "dev.ratelimit.client..", "dev.ratelimit.gateway..",
					"dev.ratelimit.ai..", "org.springframework.ai..")
			.because("the engine is every entry point's: each technology depends on it, never the other way round")
			.check(classes);
	}

	@Test
	void theModelKnowsNeitherTheFlowNorTheEngine() {
		noClasses().that()
			.resideInAPackage("dev.ratelimit.rules")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.ratelimit.rules.flow..", "dev.ratelimit.rules.internal..")
			.because("a rule is a value: the flow applies it, the engine decides it")
			.check(classes);
	}

	@Test
	void hasNoPackageCycles() {
		slices().matching("dev.ratelimit.(**)").should().beFreeOfCycles().check(classes);
	}

}
