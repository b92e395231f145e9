package dev.ratelimit;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package rules of docs/architecture.md, over the main classes of the core and the autoconfigure module.
 */
class ArchitectureTests {

	// main classes only: the tests' directories are target/test-classes, or test-classes-spring-boot-4.0 on the
	// other Boot line (which ArchUnit's own DO_NOT_INCLUDE_TESTS does not know)
	private static final JavaClasses classes = new ClassFileImporter()
		.withImportOption((location) -> !location.contains("/test-classes"))
		.importPackages("dev.ratelimit");

	@Test
	void readsTheClassesOfBothModules() {
		// a rule over no classes would hold whatever the code does
		assertThat(classes.contain("dev.ratelimit.web.internal.RateLimitEnforcer")).isTrue();
		assertThat(classes.contain("dev.ratelimit.redis.RedisRateLimiter")).isTrue();
		assertThat(classes.contain("dev.ratelimit.web.servlet.internal.ServletRateLimitSupport")).isTrue();
		assertThat(classes.stream().filter((javaClass) -> javaClass.getSimpleName().endsWith("Tests"))).isEmpty();
	}

	@Test
	void theWebLayerAndTheEndpointReachTheLimitersThroughTheCoresApiOnly() {
		noClasses().that()
			.resideInAnyPackage("dev.ratelimit.web..", "dev.ratelimit.actuate..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.ratelimit.redis..")
			.because("deciding, keys and failure modes are the core API's (RateLimiter, RateLimiters, RateLimitKeys)")
			.check(classes);
	}

	@Test
	void theApiKnowsNoImplementation() {
		noClasses().that()
			.resideInAPackage("dev.ratelimit")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.ratelimit.redis..")
			.because("the Redis limiters implement the API, not the other way round")
			.check(classes);
	}

	@Test
	void theCoreKnowsNoSpringBootAndNoWebStack() {
		noClasses().that()
			.resideInAnyPackage("dev.ratelimit", "dev.ratelimit.redis")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.boot..", "org.springframework.web..", "jakarta.servlet..",
					"dev.ratelimit.web..", "dev.ratelimit.autoconfigure..", "dev.ratelimit.actuate..")
			.check(classes);
	}

	@Test
	void theSharedWebLayerKnowsNoServletNorWebFluxType() {
		noClasses().that()
			.resideInAnyPackage("dev.ratelimit.web", "dev.ratelimit.web.internal")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("jakarta.servlet..", "org.springframework.web.servlet..",
					"org.springframework.web.server..", "org.springframework.web.reactive..",
					"org.springframework.http.server.reactive..", "reactor.netty..", "org.springframework.cloud.gateway..",
					"dev.ratelimit.web.servlet..", "dev.ratelimit.web.reactive..")
			.because("each stack's glue lives in its own package")
			.check(classes);
	}

	@Test
	void noModuleReachesIntoAnothersInternalPackages() {
		noClasses().that()
			.resideInAnyPackage("dev.ratelimit.web..", "dev.ratelimit.autoconfigure..", "dev.ratelimit.actuate..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.ratelimit.internal..", "dev.ratelimit.redis.internal..")
			.check(classes);
	}

}
