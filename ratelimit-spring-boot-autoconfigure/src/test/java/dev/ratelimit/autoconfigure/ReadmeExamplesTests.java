package dev.ratelimit.autoconfigure;

import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.testsupport.DocumentationExamples;
import dev.ratelimit.testsupport.DocumentationExamples.Block;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.web.servlet.RateLimitCondition;
import dev.ratelimit.web.servlet.RateLimitKeyResolver;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Every example of the README and of docs/*.md, as written: each Java block compiles as a compilation unit
 * against the starter's class path, and each properties block binds to the parts of the properties ({@link PropertyParts}) with
 * unknown properties refused and starts the auto-configuration, so that an example that drifts from the code
 * fails the build. A block right after {@code <!-- not-run -->} is skipped; shell blocks are not run.
 */
class ReadmeExamplesTests {

	private static final Pattern RULE_NAME = Pattern.compile("^ratelimit\\.rules(?:\\.([^.\\[]+)|\\[([^\\]]+)\\])\\.");

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class));

	static List<Path> documents() {
		List<Path> documents = new ArrayList<>();
		documents.add(Path.of("..", "README.md"));
		try (Stream<Path> docs = Files.list(Path.of("..", "docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return documents;
	}

	static List<Block> propertiesBlocks() {
		return documents().stream().flatMap((document) -> examples(document, "properties").stream()).toList();
	}

	@Test
	void findsTheExamples() {
		assertThat(documents()).extracting((path) -> path.getFileName().toString())
			.contains("README.md", "features.md", "rules.md", "limiters.md", "operations.md", "properties.md");
		assertThat(documents().stream().flatMap((document) -> examples(document, "java").stream()))
			.as("Java examples").hasSizeGreaterThanOrEqualTo(10);
		assertThat(propertiesBlocks()).as("properties examples").hasSizeGreaterThanOrEqualTo(10);
	}

	@Test
	void linksEveryPageOfTheDocumentationFromTheReadme() throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		assertThat(documents().stream()
			.map((path) -> path.getFileName().toString())
			.filter((name) -> !name.equals("README.md")))
			.as("pages of docs/ the README's index does not link")
			.allSatisfy((name) -> assertThat(readme).contains("](docs/" + name + ")"));
	}

	@Test
	void keepsTheReadmeToWhatANewcomerReadsInFiveMinutes() throws IOException {
		assertThat(Files.readAllLines(Path.of("..", "README.md"))).as("lines of README.md").hasSizeLessThanOrEqualTo(250);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("documents")
	void compilesEveryJavaExampleAsWritten(Path document, @TempDir Path output) {
		assertThat(DocumentationExamples.compile(examples(document, "java"), output)).isEmpty();
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("propertiesBlocks")
	void bindsAndStartsEveryPropertiesExample(Block block) {
		Map<String, String> ratelimit = ratelimitProperties(block.text());
		bind(ratelimit);
		Set<String> rules = ruleNames(ratelimit);
		WebApplicationContextRunner runner = this.runner.withInitializer((context) -> context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource(block.toString(), new LinkedHashMap<>(ratelimit))));
		// a bean:<name> key needs a key-resolver bean of that name, a bean:<name> plan a plan resolver, as in
		// the example beside it
		for (Map.Entry<String, String> property : ratelimit.entrySet()) {
			String value = property.getValue();
			if (value.startsWith("bean:") && property.getKey().endsWith(".plan")) {
				runner = runner.withBean(value.substring("bean:".length()), RateLimitPlanResolver.class,
						() -> (rule, key) -> null);
			}
			else if (value.startsWith("bean:") && property.getKey().endsWith(".condition")) {
				runner = runner.withBean(value.substring("bean:".length()), RateLimitCondition.class,
						() -> (request) -> true);
			}
			else if (value.startsWith("bean:")) {
				runner = runner.withBean(value.substring("bean:".length()), RateLimitKeyResolver.class,
						() -> (request) -> null);
			}
		}
		runner.run((context) -> {
			assertThat(context).as(block.toString()).hasNotFailed();
			assertThat(context.getBean(RateLimitRuleRegistry.class).pathRules())
				.extracting((rule) -> rule.name())
				.as("rules of %s", block)
				.containsExactlyInAnyOrderElementsOf(rules);
		});
	}

	@Test
	void refusesAnExampleWithAnUnknownProperty() {
		assertThatException()
			.isThrownBy(() -> bind(ratelimitProperties("ratelimit.rules.api.paths=/api/**\nratelimit.rules.api.limt=5\n")))
			.withStackTraceContaining("ratelimit.rules.api.limt");
	}

	@Test
	void refusesAnExampleWithACommentAfterAValue() {
		// properties files have no end-of-line comments: the comment would be part of the value
		assertThatException()
			.isThrownBy(() -> bind(ratelimitProperties("ratelimit.rules.api.limit=100   # permits per window\n")))
			.withStackTraceContaining("ratelimit.rules.api.limit");
	}

	private static Map<String, String> ratelimitProperties(String text) {
		Properties properties = new Properties();
		try {
			properties.load(new StringReader(text));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Map<String, String> ratelimit = new LinkedHashMap<>();
		// only ratelimit.*: spring.data.redis.*, management.* and the like are Spring Boot's to check
		properties.stringPropertyNames()
			.stream()
			.filter((name) -> name.startsWith("ratelimit."))
			.sorted()
			.forEach((name) -> ratelimit.put(name, properties.getProperty(name)));
		return ratelimit;
	}

	private static void bind(Map<String, String> ratelimit) {
		PropertyParts.bind(new Binder(new MapConfigurationPropertySource(ratelimit)));
	}

	private static Set<String> ruleNames(Map<String, String> ratelimit) {
		if ("false".equals(ratelimit.get("ratelimit.enabled"))) {
			return Set.of();
		}
		Set<String> names = new LinkedHashSet<>();
		for (String property : ratelimit.keySet()) {
			Matcher name = RULE_NAME.matcher(property);
			if (name.find()) {
				names.add((name.group(1) != null) ? name.group(1) : name.group(2));
			}
		}
		return names;
	}

	/**
	 * Returns the fenced blocks of a language in a document, those marked not-run left out.
	 */
	static List<Block> examples(Path document, String language) {
		return DocumentationExamples.read(document, language).stream().filter((block) -> !block.notRun()).toList();
	}

}
