package dev.ratelimit.gateway;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway module's package rule of docs/architecture.md: it uses what the other modules publish,
 * never a package of theirs named {@code internal}.
 */
class GatewayArchitectureTests {

	private static final JavaClasses classes = new ClassFileImporter()
		.withImportOption((location) -> !location.contains("/test-classes"))
		.importPackages("dev.ratelimit.gateway");

	@Test
	void reachesIntoNoInternalPackage() {
		// a rule over no classes would hold whatever the code does
		assertThat(classes.contain("dev.ratelimit.gateway.GatewayRateLimiter")).isTrue();
		noClasses().that()
			.resideInAPackage("dev.ratelimit.gateway..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.ratelimit.web.internal..", "dev.ratelimit.internal..", "dev.ratelimit.redis.internal..")
			.check(classes);
	}

}
