package dev.ratelimit;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package rules of docs/architecture.md, over the main classes of every module on this module's class path: the
 * core, the rule engine, the auto-configuration and the test support.
 */
class ArchitectureTests {

	// main classes only: the tests' directories are target/test-classes, or test-classes-spring-boot-4.0 on the
	// other Boot line (which ArchUnit's own DO_NOT_INCLUDE_TESTS does not know)
	private static final JavaClasses classes = new ClassFileImporter()
		.withImportOption((location) -> !location.contains("/test-classes"))
		.importPackages("dev.ratelimit");

	@Test
	void readsTheClassesOfEveryModule() {
		// a rule over no classes would hold whatever the code does
		assertThat(classes.contain("dev.ratelimit.rules.internal.RateLimitEnforcer")).isTrue();
		assertThat(classes.contain("dev.ratelimit.redis.RedisRateLimiter")).isTrue();
		assertThat(classes.contain("dev.ratelimit.rules.RateLimitRule")).isTrue();
		assertThat(classes.contain("dev.ratelimit.web.servlet.ServletRateLimitSupport")).isTrue();
		assertThat(classes.stream().filter((javaClass) -> javaClass.getSimpleName().endsWith("Tests"))).isEmpty();
	}

	@Test
	void theWebLayerAndTheEndpointReachTheLimitersThroughTheCoresApiOnly() {
		noClasses().that()
			.resideInAnyPackage("dev.ratelimit.rules..", "dev.ratelimit.web..", "dev.ratelimit.actuate..")
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
					"dev.ratelimit.rules..", "dev.ratelimit.web..", "dev.ratelimit.autoconfigure..", "dev.ratelimit.actuate..")
			.check(classes);
	}

	@Test
	void noPublicSignatureOutsideAnInternalPackageNamesAnInternalType() {
		classes().that()
			.resideOutsideOfPackage("..internal..")
			.and()
			.arePublic()
			.should(nameNoInternalTypeInTheirPublicSignatures())
			.because("a public type that takes or returns an internal one makes the internal one API")
			.check(classes);
	}

	@Test
	void hasNoPackageCycles() {
		slices().matching("dev.ratelimit.(**)")
			.should()
			.beFreeOfCycles()
			.check(classes);
	}

	private static ArchCondition<JavaClass> nameNoInternalTypeInTheirPublicSignatures() {
		return new ArchCondition<>("name no type of an internal package in a public or protected signature") {

			@Override
			public void check(JavaClass type, ConditionEvents events) {
				List<String> found = new ArrayList<>();
				type.getRawSuperclass().ifPresent((superclass) -> internal(superclass, "extends", found));
				type.getRawInterfaces().forEach((implemented) -> internal(implemented, "implements", found));
				for (JavaMember member : type.getMembers()) {
					Set<JavaModifier> modifiers = member.getModifiers();
					if (!modifiers.contains(JavaModifier.PUBLIC) && !modifiers.contains(JavaModifier.PROTECTED)) {
						continue;
					}
					Set<JavaClass> involved = new LinkedHashSet<>();
					if (member instanceof JavaField field) {
						involved.addAll(field.getType().getAllInvolvedRawTypes());
					}
					else if (member instanceof JavaCodeUnit code) {
						involved.addAll(code.getReturnType().getAllInvolvedRawTypes());
						code.getParameterTypes().forEach((parameter) -> involved.addAll(parameter.getAllInvolvedRawTypes()));
					}
					involved.forEach((named) -> internal(named, member.getFullName(), found));
				}
				found.forEach((violation) -> events.add(SimpleConditionEvent.violated(type, violation)));
			}

			private void internal(JavaClass named, String where, List<String> found) {
				if (named.getPackageName().endsWith(".internal") || named.getPackageName().contains(".internal.")) {
					found.add(where + " names " + named.getName());
				}
			}

		};
	}

}
