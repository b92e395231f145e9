package dev.ratelimit.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
import reactor.core.publisher.Mono;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every gateway example of the README and of docs/gateway.md, as written: each YAML block starts a gateway whose
 * rate limiter reads the args of every route (a block with Spring Cloud Gateway's {@code redis-rate-limiter.*}
 * args, with ratelimit disabled, so that its {@code RedisRateLimiter} reads them), and each Java block of
 * docs/gateway.md compiles against the gateway's class path (the autoconfigure module's
 * {@code ReadmeExamplesTests}, which lacks it, skips them).
 */
class GatewayDocumentationTests {

	private static final Pattern KEY_RESOLVER = Pattern.compile("#\\{@(\\w+)\\}");

	private static final Pattern CLASS_NAME = Pattern.compile("(?m)^(?:public\\s+)?(?:final\\s+)?class\\s+(\\w+)");

	static List<Block> yamlBlocks() {
		List<Block> blocks = new ArrayList<>();
		blocks.addAll(Block.read(Path.of("..", "README.md"), "yaml"));
		blocks.addAll(Block.read(Path.of("..", "docs", "gateway.md"), "yaml"));
		return blocks;
	}

	@Test
	void findsTheExamples() {
		assertThat(yamlBlocks()).hasSizeGreaterThanOrEqualTo(5);
		assertThat(yamlBlocks()).filteredOn((block) -> block.text().contains("redis-rate-limiter")).hasSize(2);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("yamlBlocks")
	void startsAGatewayWithEveryYamlExample(Block block) throws IOException {
		boolean springCloudGateways = block.text().contains("redis-rate-limiter");
		List<PropertySource<?>> yaml = new YamlPropertySourceLoader().load(block.toString(),
				new ByteArrayResource(block.text().getBytes(StandardCharsets.UTF_8)));
		ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
			.withUserConfiguration(Gateway.class)
			.withPropertyValues("spring.data.redis.url=" + RedisTestServer.shared().url(),
					"ratelimit.enabled=" + !springCloudGateways)
			.withInitializer((context) -> yaml.forEach(context.getEnvironment().getPropertySources()::addFirst));
		Matcher resolvers = KEY_RESOLVER.matcher(block.text());
		while (resolvers.find()) {
			runner = runner.withBean(resolvers.group(1), KeyResolver.class, () -> (exchange) -> Mono.just("key"));
		}
		runner.run((context) -> {
			assertThat(context).as(block.toString()).hasNotFailed();
			List<String> limited = new ArrayList<>();
			for (RouteDefinition route : context.getBean(GatewayProperties.class).getRoutes()) {
				for (FilterDefinition filter : route.getFilters()) {
					if ("RequestRateLimiter".equals(filter.getName())) {
						limited.add(route.getId());
					}
				}
			}
			assertThat(limited).as("routes of %s", block).isNotEmpty();
			for (String routeId : limited) {
				if (springCloudGateways) {
					assertThat(context.getBean(RedisRateLimiter.class).getConfig()).containsKey(routeId);
				}
				else {
					assertThat(context.getBean(GatewayRateLimiter.class).rule(routeId)).as(routeId).isNotNull();
				}
			}
		});
	}

	@Test
	void compilesEveryJavaExampleOfTheGatewayDocumentation(@TempDir Path output) throws IOException {
		List<JavaFileObject> sources = new ArrayList<>();
		for (Block block : Block.read(Path.of("..", "docs", "gateway.md"), "java")) {
			Matcher name = CLASS_NAME.matcher(block.text());
			assertThat(name.find()).as("%s: example without a class of its own", block).isTrue();
			sources.add(new Source(name.group(1), block.text()));
		}
		assertThat(sources).isNotEmpty();
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
			String surefire = System.getProperty("surefire.test.class.path");
			String classPath = (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
			boolean compiled = compiler
				.getTask(null, files, diagnostics, List.of("-classpath", classPath, "-d", output.toString(), "-proc:none"),
						null, sources)
				.call();
			assertThat(diagnostics.getDiagnostics()).filteredOn((diagnostic) -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
				.isEmpty();
			assertThat(compiled).isTrue();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Gateway {

		@Bean
		@Primary
		KeyResolver defaultKeyResolver() {
			return (exchange) -> Mono.just("key");
		}

	}

	/**
	 * A fenced block of a document, named by its file and first line; every block of the language, marked
	 * {@code <!-- not-run -->} or not.
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
				if (lines.get(i).equals("```" + language)) {
					int end = i + 1;
					while (!lines.get(end).startsWith("```")) {
						end++;
					}
					blocks.add(new Block(document, i + 2, String.join("\n", lines.subList(i + 1, end)) + "\n"));
					i = end;
				}
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
