package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule applies to the routes of Spring Cloud Gateway Server MVC like to any handler: a real gateway
 * route to a backend on 127.0.0.1, refused with 429 after the limit without reaching the backend.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.key-prefix=gateway-mvc", "ratelimit.rules.routed.paths=/gw/**",
				"ratelimit.rules.routed.limit=2", "ratelimit.rules.routed.window=1m" })
class RateLimitGatewayServerMvcIntegrationTests extends RedisBackedWebTests {

	private static final AtomicInteger served = new AtomicInteger();

	private static final HttpServer backend = startBackend();

	@DynamicPropertySource
	static void route(DynamicPropertyRegistry registry) {
		// a list binds from one property source: every property of the route here
		registry.add("spring.cloud.gateway.server.webmvc.routes[0].id", () -> "backend");
		registry.add("spring.cloud.gateway.server.webmvc.routes[0].uri",
				() -> "http://127.0.0.1:" + backend.getAddress().getPort());
		registry.add("spring.cloud.gateway.server.webmvc.routes[0].predicates[0]", () -> "Path=/gw/**");
		registry.add("spring.cloud.gateway.server.webmvc.routes[0].filters[0]", () -> "StripPrefix=1");
	}

	@AfterAll
	static void stopBackend() {
		backend.stop(0);
	}

	@Test
	void limitsARoutedPathBeforeTheBackendSeesIt() throws Exception {
		int before = served.get();
		for (int remaining = 1; remaining >= 0; remaining--) {
			HttpResponse<String> routed = get(this.port, "/gw/hello");
			assertThat(routed.statusCode()).isEqualTo(200);
			assertThat(routed.body()).isEqualTo("backend saw /hello");
			assertThat(routed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
				.startsWith("\"routed\";r=" + remaining);
		}
		assertThat(get(this.port, "/gw/hello").statusCode()).isEqualTo(429);
		assertThat(served.get() - before).isEqualTo(2);
	}

	private static HttpServer startBackend() {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
			server.createContext("/", (exchange) -> {
				served.incrementAndGet();
				byte[] body = ("backend saw " + exchange.getRequestURI().getPath()).getBytes(StandardCharsets.UTF_8);
				exchange.sendResponseHeaders(200, body.length);
				try (OutputStream out = exchange.getResponseBody()) {
					out.write(body);
				}
			});
			server.start();
			return server;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start the backend", ex);
		}
	}

}
