package dev.ratelimit.gateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.testsupport.DocumentationExamples;
import dev.ratelimit.testsupport.DocumentationExamples.Block;
import dev.ratelimit.testsupport.DocumentationTranscripts;
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
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Every gateway example of docs/features.md and of docs/gateway.md, as written: each YAML block starts a gateway whose
 * rate limiter reads the args of every route (a block with Spring Cloud Gateway's {@code redis-rate-limiter.*}
 * args, with ratelimit disabled, so that its {@code RedisRateLimiter} reads them), and each Java block of
 * docs/gateway.md compiles against the gateway's class path (the autoconfigure module's
 * {@code ReadmeExamplesTests}, which lacks it, skips them); the startup errors docs/gateway.md shows are those Spring
 * Boot reports for the configurations they name.
 */
class GatewayDocumentationTests {

	private static final Pattern KEY_RESOLVER = Pattern.compile("#\\{@(\\w+)\\}");

	/** The plan resolvers an example's routes name ({@code ratelimit.plan: bean:<name>}), given a bean each. */
	private static final Pattern PLAN_RESOLVER = Pattern.compile("ratelimit\\.plan: bean:([A-Za-z0-9]+)");

	static List<Block> yamlBlocks() {
		List<Block> blocks = new ArrayList<>();
		blocks.addAll(DocumentationExamples.read(Path.of("..", "docs", "features.md"), "yaml"));
		blocks.addAll(DocumentationExamples.read(Path.of("..", "docs", "gateway.md"), "yaml"));
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
		Matcher plans = PLAN_RESOLVER.matcher(block.text());
		while (plans.find()) {
			runner = runner.withBean(plans.group(1), RateLimitPlanResolver.class, () -> (rule, key) -> null);
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
	void compilesEveryJavaExampleOfTheGatewayDocumentation(@TempDir Path output) {
		List<Block> examples = DocumentationExamples.read(Path.of("..", "docs", "gateway.md"), "java");
		assertThat(examples).isNotEmpty();
		assertThat(DocumentationExamples.compile(examples, output)).isEmpty();
	}

	@Test
	void anInvalidArgStopsStartupAsTheDocsShow() {
		Map<String, Object> properties = TestGateway.properties();
		route(properties, 0, "orders", Map.of("ratelimit.limit", "0", "ratelimit.window", "1m"));
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "gateway.md"),
				"GatewayDocumentationTests", "invalid-arg"), failureReport(properties));
	}

	@Test
	void aRouteThatWouldChargeAnothersBudgetStopsStartupAsTheDocsShow() {
		Map<String, Object> properties = TestGateway.properties();
		route(properties, 0, "search-a", Map.of("ratelimit.budget", "search", "ratelimit.limit", "3",
				"ratelimit.window", "1h"));
		route(properties, 1, "search", Map.of("ratelimit.limit", "3", "ratelimit.window", "1h"));
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "gateway.md"),
				"GatewayDocumentationTests", "shared-budget"), failureReport(properties));
	}

	private static void route(Map<String, Object> properties, int index, String id, Map<String, String> args) {
		String route = TestGateway.ROUTES + "[" + index + "]";
		properties.put(route + ".id", id);
		properties.put(route + ".uri", "http://127.0.0.1:1");
		properties.put(route + ".predicates[0]", "Path=/" + id + "/**");
		properties.put(route + ".filters[0].name", "RequestRateLimiter");
		new TreeMap<>(args).forEach((name, value) -> properties.put(route + ".filters[0].args." + name, value));
	}

	/** Starts a gateway that must fail, and returns what Spring Boot reports of its failure. */
	private static String failureReport(Map<String, Object> properties) {
		Throwable failure = catchThrowable(() -> TestGateway.start(properties).close());
		assertThat(failure).isNotNull();
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("gateway", properties));
		return DocumentationTranscripts.failureReport(failure, environment);
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

}
