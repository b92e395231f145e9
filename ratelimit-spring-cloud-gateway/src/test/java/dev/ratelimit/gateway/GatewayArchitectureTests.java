package dev.ratelimit.gateway;

import java.util.Set;

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

	/** The entry-point SPI: what an entry point of the request flow other than the starter's own may use. */
	private static final Set<String> ENTRY_POINT_SPI = Set.of("dev.ratelimit.rules.flow.RateLimitFlow",
			"dev.ratelimit.rules.flow.RateLimitExchange", "dev.ratelimit.rules.RateLimitRule", "dev.ratelimit.rules.flow.RateLimitRejection",
			"dev.ratelimit.rules.RateLimitRuleFactory", "dev.ratelimit.rules.LimitDefinition", "dev.ratelimit.rules.flow.AfterResponse",
			"dev.ratelimit.rules.flow.PendingSettlement",
			"dev.ratelimit.rules.KeyResolvers", "dev.ratelimit.rules.ResponseCost",
			"dev.ratelimit.rules.InvalidRateLimitRuleException", "dev.ratelimit.web.reactive.ReactorObservations",
			"dev.ratelimit.autoconfigure.RateLimitProperties", "dev.ratelimit.autoconfigure.RateLimitAutoConfiguration",
			"dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration");

	@Test
	void usesOnlyTheEntryPointSpiOfTheWebLayer() {
		assertThat(classes.contain("dev.ratelimit.gateway.RouteExchange")).isTrue();
		DescribedPredicate<JavaClass> outsideTheSpi = new DescribedPredicate<>("a type of the starter outside the entry-point SPI") {

			@Override
			public boolean test(JavaClass type) {
				String name = type.getName();
				boolean starters = name.startsWith("dev.ratelimit.rules.") || name.startsWith("dev.ratelimit.web.")
						|| name.startsWith("dev.ratelimit.autoconfigure.") || name.startsWith("dev.ratelimit.actuate.");
				// nested types (a rejection's cases, the properties' groups) belong to their outer type
				int nested = name.indexOf('$');
				return starters && !ENTRY_POINT_SPI.contains((nested < 0) ? name : name.substring(0, nested));
			}

		};
		noClasses().that()
			.resideInAPackage("dev.ratelimit.gateway..")
			.should()
			.dependOnClassesThat(outsideTheSpi)
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
