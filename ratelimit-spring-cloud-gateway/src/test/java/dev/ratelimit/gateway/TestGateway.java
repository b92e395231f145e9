package dev.ratelimit.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Mono;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A real Spring Cloud Gateway on a random port of 127.0.0.1, with the test Redis, a key prefix of its own
 * (so that no two gateways, nor two test runs, share budgets), a {@link KeyResolver} that reads
 * {@code X-Client}, and routes to a {@link Backend} that the test adds one property at a time.
 */
final class TestGateway implements AutoCloseable {

	static final String ROUTES = "spring.cloud.gateway.server.webflux.routes";

	private static final HttpClient http = HttpClient.newHttpClient();

	private final ConfigurableApplicationContext context;

	private final int port;

	private final String keyPrefix;

	private TestGateway(ConfigurableApplicationContext context) {
		this.context = context;
		this.port = Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
		this.keyPrefix = context.getEnvironment().getRequiredProperty("ratelimit.key-prefix");
	}

	/**
	 * Returns the properties of a gateway with the test Redis and no routes yet.
	 */
	static Map<String, Object> properties() {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("server.address", "127.0.0.1");
		properties.put("server.port", "0");
		properties.put("spring.data.redis.url", RedisTestServer.shared().url());
		properties.put("ratelimit.key-prefix", "gw-" + UUID.randomUUID().toString().substring(0, 8));
		// functional tests: a slow moment on a loaded machine must not turn a decision into fail-open
		properties.put("ratelimit.timeout", "5s");
		return properties;
	}

	/**
	 * Adds a route to the backend, for requests under {@code /<id>/}, with a {@code RequestRateLimiter} filter of
	 * these args.
	 */
	static Map<String, Object> route(Map<String, Object> properties, Backend backend, String id,
			String... args) {
		String route = ROUTES + "[" + routes(properties) + "]";
		unlimitedRoute(properties, backend, id);
		properties.put(route + ".filters[0].name", "RequestRateLimiter");
		for (String arg : args) {
			int equals = arg.indexOf('=');
			properties.put(route + ".filters[0].args." + arg.substring(0, equals), arg.substring(equals + 1));
		}
		return properties;
	}

	/**
	 * Adds a route to the backend without a rate limit, for requests under {@code /<id>/}.
	 */
	static Map<String, Object> unlimitedRoute(Map<String, Object> properties, Backend backend, String id) {
		String route = ROUTES + "[" + routes(properties) + "]";
		properties.put(route + ".id", id);
		properties.put(route + ".uri", backend.uri());
		properties.put(route + ".predicates[0]", "Path=/" + id + "/**");
		return properties;
	}

	private static long routes(Map<String, Object> properties) {
		return properties.keySet().stream().filter((key) -> key.startsWith(ROUTES) && key.endsWith("].id")).count();
	}

	static TestGateway start(Map<String, Object> properties, Class<?>... configurations) {
		return new TestGateway(new SpringApplicationBuilder(Application.class).sources(configurations)
			.web(WebApplicationType.REACTIVE)
			.properties(properties)
			.run());
	}

	ConfigurableApplicationContext context() {
		return this.context;
	}

	String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Sends a GET through the gateway, as the client {@code client} ({@code X-Client}), or without the header
	 * when it is {@code null}.
	 */
	HttpResponse<String> get(String path, String client) {
		try {
			return http.send(request(path, client), HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Sends a GET through the gateway without waiting for the answer.
	 */
	CompletableFuture<HttpResponse<String>> getAsync(String path, String client) {
		return http.sendAsync(request(path, client), HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest request(String path, String client) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30));
		if (client != null) {
			request.header("X-Client", client);
		}
		return request.build();
	}

	@Override
	public void close() {
		this.context.close();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		/** How many requests the key resolver has read, in every gateway of the test run. */
		static final AtomicInteger resolved = new AtomicInteger();

		@Bean
		KeyResolver clientKeyResolver() {
			return (exchange) -> {
				resolved.incrementAndGet();
				return Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"));
			};
		}

	}

}
