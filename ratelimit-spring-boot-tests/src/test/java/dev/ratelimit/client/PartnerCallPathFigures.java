package dev.ratelimit.client;

import java.util.Map;
import java.util.UUID;

import dev.ratelimit.testsupport.CallPathFigure;
import dev.ratelimit.testsupport.RedisTestServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A figure of docs/architecture.md, not a test (surefire runs it only when named:
 * {@code -Dtest=PartnerCallPathFigures}): the path of one allowed partner call through a {@code RestClient} built
 * from Spring Boot's builder, to a partner on 127.0.0.1 ({@code ratelimit.clients.figures.*}, one budget keyed by
 * the partner's name; warmed up by a first call), as {@link CallPathFigure} prints it.
 */
class PartnerCallPathFigures {

	@Test
	void pathOfOneAllowedRestClientCall() throws Exception {
		try (PartnerServer partner = new PartnerServer();
				ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
					.web(WebApplicationType.NONE)
					.properties(Map.of("spring.data.redis.url", RedisTestServer.shared().url(), "ratelimit.key-prefix",
							"figures-" + UUID.randomUUID().toString().substring(0, 8), "ratelimit.timeout", "5s",
							"ratelimit.clients.figures.urls", partner.url("/figures/**"),
							"ratelimit.clients.figures.limit", "1000000", "ratelimit.clients.figures.window", "1h"))
					.run()) {
			// built once: getting a builder runs the bean post-processors, which are no part of a call
			RestClient client = context.getBean(RestClient.Builder.class).build();
			String url = partner.url("/figures/items");
			CallPathFigure figure = CallPathFigure.measure("partner call (RestClient)", () -> assertThat(
					client.get().uri(url).retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200));
			assertThat(figure.files()).contains("dev.ratelimit.client.RateLimitClientHttpRequestInterceptor",
					"dev.ratelimit.rules.internal.EngineFlow", "dev.ratelimit.redis.RedisRateLimiter");
			assertThat(partner.received("figures")).isEqualTo(2);
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
