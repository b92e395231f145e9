package dev.ratelimit.gateway;


import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway module's package rules of docs/architecture.md: it uses what the other modules publish, never a
 * package of theirs named {@code internal}, and of the starter's web layer only the entry-point SPI.
 */
class GatewayArchitectureTests {

	private static final JavaClasses classes = new ClassFileImporter()
		.withImportOption((location) -> !location.contains("/test-classes"))
		.importPackages("dev.ratelimit.gateway");

	/**
	 * The gateway's Boot side: its auto-configuration, which orders itself after the engine's, and the route args, which
	 * bind as a rule's properties do ({@code RateLimitProperties.Charge}).
	 */
	private static final DescribedPredicate<JavaClass> BOOT_SIDE = DescribedPredicate.describe(
			"the gateway's auto-configuration or route args",
			(JavaClass type) -> type.getName().startsWith(RateLimitGatewayAutoConfiguration.class.getName())
					|| type.getName().equals(GatewayRateLimiter.Config.class.getName())
					|| type.getName().startsWith(RouteArgs.class.getName()));

	@Test
	void usesOnlyTheEnginesSpiAndModel() {
		assertThat(classes.contain("dev.ratelimit.gateway.RouteExchange")).isTrue();
		// as every runtime module: the engine's SPI and model, the core's API, and the WebFlux module's public side
		noClasses().that(DescribedPredicate.not(BOOT_SIDE))
			.and()
			.resideInAPackage("dev.ratelimit.gateway..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.ratelimit.rules.internal..", "dev.ratelimit.redis..", "dev.ratelimit.autoconfigure..",
					"dev.ratelimit.actuate..", "dev.ratelimit.web.servlet..", "dev.ratelimit.grpc..", "dev.ratelimit.client..",
					"dev.ratelimit.method..", "dev.ratelimit.ai..")
			.because("a runtime module drives the engine through dev.ratelimit.rules.flow and reads the model")
			.check(classes);
	}

	@Test
	void reachesIntoNoInternalPackage() {
		// a rule over no classes would hold whatever the code does
		assertThat(classes.contain("dev.ratelimit.gateway.GatewayRateLimiter")).isTrue();
		noClasses().that()
			.resideInAPackage("dev.ratelimit.gateway..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("..internal..")
			.check(classes);
	}

	@Test
	void hasNoPackageCycles() {
		slices().matching("dev.ratelimit.(**)").should().beFreeOfCycles().check(classes);
	}

}
