package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class RateLimitPropertiesFailureAnalyzerTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(PropertiesOnly.class);

	@Test
	void namesTheClosestKnownPropertyOfAMisspeltRuleOption() {
		FailureAnalysis analysis = analyze("ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limt=5");
		assertThat(analysis.getDescription()).contains("Property ratelimit.rules.api.limt")
			.contains("is not a property of the rate limiter");
		assertThat(analysis.getAction())
			.startsWith("Did you mean ratelimit.rules.api.limit? Rename ratelimit.rules.api.limt to it.");
	}

	@Test
	void namesTheClosestKnownPropertyAtTheTopAndInGroups() {
		assertThat(analyze("ratelimit.timout=1s").getAction()).startsWith("Did you mean ratelimit.timeout?");
		assertThat(analyze("ratelimit.circuit-breaker.failure-treshold=3").getAction())
			.startsWith("Did you mean ratelimit.circuit-breaker.failure-threshold?");
		assertThat(analyze("ratelimit.clients.partner.max-wiat=1s").getAction())
			.startsWith("Did you mean ratelimit.clients.partner.max-wait?");
		assertThat(analyze("ratelimit.rules.api.plans.gold.limti=5").getAction())
			.startsWith("Did you mean ratelimit.rules.api.plans.gold.limit?");
	}

	@Test
	void namesTheClosestKnownPropertyOfEveryPart() {
		assertThat(analyze("ratelimit.filter.ordr=1").getAction()).startsWith("Did you mean ratelimit.filter.order?");
		assertThat(analyze("ratelimit.client.partner.urls=https://partner.example/**").getAction())
			.startsWith("Did you mean ratelimit.clients?");
		assertThat(analyze("ratelimit.filtr.order=1").getAction()).startsWith("Did you mean ratelimit.filter?");
		assertThat(analyze("ratelimit.clients.partner.limits[0].windw=1s").getAction())
			.startsWith("Did you mean ratelimit.clients.partner.limits[0].window?");
	}

	@Test
	void listsTheKnownNamesWhenNoneIsClose() {
		FailureAnalysis analysis = analyze("ratelimit.circuit-breaker.xyzzy-plugh=3");
		assertThat(analysis.getAction()).startsWith("Remove ratelimit.circuit-breaker.xyzzy-plugh or rename it to one of: ")
			.contains("failure-threshold");
	}

	@Test
	void listsTheAcceptedFormsOfADuration() {
		FailureAnalysis analysis = analyze("ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=5",
				"ratelimit.rules.api.window=5 minutes");
		assertThat(analysis.getDescription())
			.contains("Property ratelimit.rules.api.window")
			.contains("has the value '5 minutes', which is not a duration.");
		assertThat(analysis.getAction()).contains("5m, PT5M or 300s");
	}

	@Test
	void listsTheAcceptedVersionsOfTheHeaders() {
		FailureAnalysis analysis = analyze("ratelimit.headers.version=draft-13");
		assertThat(analysis.getDescription()).contains("Property ratelimit.headers.version")
			.contains("has the value 'draft-13', which is not one of its accepted values: draft-7, draft-9, draft-12.");
		assertThat(analysis.getAction()).isEqualTo("Set ratelimit.headers.version to one of: draft-7, draft-9, draft-12.");
	}

	@Test
	void docsShowTheTextUsersSeeForATypoAndABadDuration() throws IOException {
		String rules = Files.readString(Path.of("..", "docs", "rules.md"));
		for (String file : List.of("typo.properties", "duration.properties")) {
			FailureAnalysis analysis = analyzeFile("failure-analysis/" + file);
			assertThat(analysis.getDescription()).contains("class path resource [failure-analysis/" + file + "]");
			String shown = analysis.getDescription().replace("failure-analysis/" + file, "application.properties");
			assertThat(rules).contains(shown);
			for (String line : analysis.getAction().split("\n")) {
				assertThat(rules).contains(line);
			}
		}
	}

	@Test
	void leavesErrorsOutsideItsPropertiesToSpringBoot() {
		Binder binder = new Binder(new MapConfigurationPropertySource(Map.of("other.timeout", "5 minutes")));
		BindException failure = catchThrowableOfType(BindException.class,
				() -> binder.bind("other.timeout", Duration.class));
		assertThat(new RateLimitPropertiesFailureAnalyzer().analyze(failure)).isNull();
	}

	@Test
	void comesBeforeSpringBootsOwnAnalyzers() {
		this.runner.withPropertyValues("ratelimit.rules.api.limt=5").run((context) -> {
			Throwable failure = Objects.requireNonNull(context.getStartupFailure());
			ArgumentResolver arguments = ArgumentResolver.of(Environment.class, new StandardEnvironment())
				.and(org.springframework.beans.factory.BeanFactory.class, new DefaultListableBeanFactory());
			List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
				.load(FailureAnalyzer.class, arguments);
			AnnotationAwareOrderComparator.sort(analyzers);
			FailureAnalyzer first = analyzers.stream()
				.filter((analyzer) -> analyzer.analyze(failure) != null)
				.findFirst()
				.orElseThrow();
			assertThat(first).isInstanceOf(RateLimitPropertiesFailureAnalyzer.class);
		});
	}

	private FailureAnalysis analyzeFile(String resource) throws IOException {
		List<PropertySource<?>> loaded = new PropertiesPropertySourceLoader().load(resource,
				new ClassPathResource(resource));
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		this.runner.withInitializer((context) -> loaded.forEach(context.getEnvironment().getPropertySources()::addFirst))
			.run((context) -> {
				assertThat(context).hasFailed();
				analysis[0] = new RateLimitPropertiesFailureAnalyzer()
					.analyze(Objects.requireNonNull(context.getStartupFailure()));
			});
		assertThat(analysis[0]).isNotNull();
		return analysis[0];
	}

	private FailureAnalysis analyze(String... properties) {
		FailureAnalysis[] analysis = new FailureAnalysis[1];
		this.runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			analysis[0] = new RateLimitPropertiesFailureAnalyzer()
				.analyze(Objects.requireNonNull(context.getStartupFailure()));
		});
		assertThat(analysis[0]).isNotNull();
		return analysis[0];
	}

	@Configuration(proxyBeanMethods = false)
	@Import(RateLimitPropertiesConfiguration.class)
	static class PropertiesOnly {

	}

}
