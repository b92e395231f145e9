package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.web.RateLimitRules;
import dev.ratelimit.web.servlet.RateLimitKeyResolver;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Every example of the README and of docs/*.md, as written: each Java block compiles as a compilation unit
 * against the starter's class path, and each properties block binds to {@link RateLimitProperties} with
 * unknown properties refused and starts the auto-configuration, so that an example that drifts from the code
 * fails the build. A block right after {@code <!-- not-run -->} is skipped; shell blocks are not run.
 */
class ReadmeExamplesTests {

	private static final Pattern CLASS_NAME = Pattern.compile("(?m)^(?:public\\s+)?(?:final\\s+)?(?:class|interface|record)\\s+(\\w+)");

	private static final Pattern RULE_NAME = Pattern.compile("^ratelimit\\.rules(?:\\.([^.\\[]+)|\\[([^\\]]+)\\])\\.");

	private static final String NOT_RUN = "<!-- not-run -->";

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
		return documents().stream().flatMap((document) -> Block.read(document, "properties").stream()).toList();
	}

	@Test
	void findsTheExamples() {
		assertThat(documents()).extracting((path) -> path.getFileName().toString())
			.contains("README.md", "rules.md", "limiters.md", "operations.md", "properties.md");
		assertThat(documents().stream().flatMap((document) -> Block.read(document, "java").stream()))
			.as("Java examples").hasSizeGreaterThanOrEqualTo(10);
		assertThat(propertiesBlocks()).as("properties examples").hasSizeGreaterThanOrEqualTo(10);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("documents")
	void compilesEveryJavaExampleAsWritten(Path document, @TempDir Path output) throws IOException {
		List<JavaFileObject> sources = new ArrayList<>();
		for (Block block : Block.read(document, "java")) {
			Matcher name = CLASS_NAME.matcher(block.text());
			assertThat(name.find()).as("%s: example without a class of its own:%n%s", block, block.text()).isTrue();
			sources.add(new Source(document.getFileName() + "/" + name.group(1), block.text()));
		}
		if (sources.isEmpty()) {
			return;
		}
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
			List<String> options = List.of("-classpath", classPath(), "-d", output.toString(), "-proc:none",
					"-parameters");
			boolean compiled = compiler.getTask(null, files, diagnostics, options, null, sources).call();
			List<String> errors = diagnostics.getDiagnostics()
				.stream()
				.filter((diagnostic) -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
				.map((diagnostic) -> diagnostic.getSource().getName() + ":" + diagnostic.getLineNumber() + ": "
						+ diagnostic.getMessage(Locale.ROOT))
				.toList();
			assertThat(errors).isEmpty();
			assertThat(compiled).isTrue();
		}
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
			else if (value.startsWith("bean:")) {
				runner = runner.withBean(value.substring("bean:".length()), RateLimitKeyResolver.class,
						() -> (request) -> null);
			}
		}
		runner.run((context) -> {
			assertThat(context).as(block.toString()).hasNotFailed();
			assertThat(context.getBean(RateLimitRules.class).pathRules())
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
		new Binder(new MapConfigurationPropertySource(ratelimit)).bind("ratelimit",
				Bindable.of(RateLimitProperties.class), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
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

	private static String classPath() {
		// Surefire may run tests from a manifest-only jar; it names the real class path here
		String surefire = System.getProperty("surefire.test.class.path");
		return (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
	}

	/**
	 * A fenced block of a document, named by its file and first line.
	 */
	record Block(Path document, int line, String text) {

		static List<Block> read(Path document, String language) {
			List<String> lines;
			try {
				lines = Files.readAllLines(document);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			List<Block> blocks = new ArrayList<>();
			for (int i = 0; i < lines.size(); i++) {
				if (!lines.get(i).equals("```" + language)) {
					continue;
				}
				boolean skipped = i > 0 && lines.get(i - 1).trim().equals(NOT_RUN);
				int start = i + 1;
				int end = start;
				while (end < lines.size() && !lines.get(end).startsWith("```")) {
					end++;
				}
				if (!skipped) {
					blocks.add(new Block(document, start + 1, String.join("\n", lines.subList(start, end)) + "\n"));
				}
				i = end;
			}
			return blocks;
		}

		@Override
		public String toString() {
			return this.document.getFileName() + ":" + this.line;
		}

	}

	private static final class Source extends SimpleJavaFileObject {

		private final String code;

		Source(String name, String code) {
			super(URI.create("string:///" + name + Kind.SOURCE.extension), Kind.SOURCE);
			this.code = code;
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return this.code;
		}

	}

}
