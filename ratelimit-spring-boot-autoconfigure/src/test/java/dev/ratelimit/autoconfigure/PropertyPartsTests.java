package dev.ratelimit.autoconfigure;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import dev.ratelimit.autoconfigure.client.RateLimitClientProperties;
import dev.ratelimit.autoconfigure.web.RateLimitFilterProperties;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class PropertyPartsTests {

	@Test
	void knowsEveryConfigurationPropertiesClassOfTheModule() {
		ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
		scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
		Set<Class<?>> declared = scanner.findCandidateComponents("dev.ratelimit")
			.stream()
			.map(BeanDefinition::getBeanClassName)
			.map((name) -> ClassUtils.resolveClassName(String.valueOf(name), getClass().getClassLoader()))
			.collect(Collectors.toSet());
		assertThat(PropertyParts.ALL).extracting(PropertyParts.Part::type).containsExactlyInAnyOrderElementsOf(declared);
		assertThat(PropertyParts.ALL).allSatisfy((part) -> assertThat(part.prefix())
			.isEqualTo(part.type().getAnnotation(ConfigurationProperties.class).value()));
	}

	@Test
	void bindsTheNamesOfEveryPart() {
		RateLimitProperties properties = bind(Map.of("ratelimit.rules.api.paths", "/api/**", "ratelimit.rules.api.limit",
				"5", "ratelimit.clients.partner.urls", "https://partner.example/**", "ratelimit.filter.order", "7"));
		assertThat(properties.getRules().get("api").getLimit()).isEqualTo(5);
	}

	@Test
	void refusesANameThatNoPartBinds() {
		BindException failure = catchThrowableOfType(BindException.class,
				() -> bind(Map.of("ratelimit.clients.partner.urls", "https://partner.example/**",
						"ratelimit.filter.ordr", "7", "ratelimit.clients.partner.max-wiat", "1s")));
		assertThat(failure.getName()).hasToString("ratelimit");
		UnboundConfigurationPropertiesException unbound = (UnboundConfigurationPropertiesException) failure.getCause();
		assertThat(unbound.getUnboundProperties()).extracting((property) -> property.getName().toString())
			.containsExactlyInAnyOrder("ratelimit.filter.ordr", "ratelimit.clients.partner.max-wiat");
	}

	@Test
	void givesEveryGroupOneSharedBaseAtMost() {
		Set<Class<?>> groups = PropertyParts.ALL.stream()
			.flatMap((part) -> Arrays.stream(part.type().getDeclaredClasses()))
			.collect(Collectors.toSet());
		assertThat(groups).contains(RateLimitProperties.Rule.class, RateLimitClientProperties.Client.class)
			.allSatisfy((group) -> assertThat(group.getSuperclass().getSuperclass())
				.as("the superclass of %s's superclass", group.getSimpleName())
				.isIn(Object.class, null));
		assertThat(RateLimitFilterProperties.class.getSuperclass()).isEqualTo(Object.class);
	}

	@Test
	void theCommonPackageNamesNoTechnologysPart() {
		JavaClasses classes = new ClassFileImporter().withImportOption((location) -> !location.contains("/test-classes"))
			.importPackages("dev.ratelimit.autoconfigure");
		assertThat(classes.contain(RateLimitClientProperties.Client.class)).isTrue();
		noClasses().that()
			.resideInAPackage("dev.ratelimit.autoconfigure")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.ratelimit.autoconfigure.(*)..")
			.because("each technology's package uses the common one (its properties, the rules): the common package "
					+ "finds the technologies' parts in PropertyParts.imports rather than naming them")
			.check(classes);
	}

	private static RateLimitProperties bind(Map<String, String> properties) {
		return PropertyParts.bind(new Binder(new MapConfigurationPropertySource(properties)));
	}

}
