package dev.ratelimit.gateway;

import java.util.Map;

import dev.ratelimit.testsupport.CallPathFigure;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A figure of docs/architecture.md, not a test (surefire runs it only when named:
 * {@code -Dtest=GatewayRoutePathFigures}): the path of one allowed request through a real Spring Cloud Gateway route
 * with ratelimit's {@code RequestRateLimiter} to a backend on 127.0.0.1 (the route's args, keyed by the gateway's
 * {@code KeyResolver}, here {@code X-Client}; warmed up by a first request), as {@link CallPathFigure} prints it.
 */
class GatewayRoutePathFigures {

	@Test
	void pathOfOneAllowedRequest() {
		try (Backend backend = Backend.start()) {
			Map<String, Object> properties = TestGateway.properties();
			TestGateway.route(properties, backend, "figures", "ratelimit.limit=1000000", "ratelimit.window=1h");
			try (TestGateway gateway = TestGateway.start(properties)) {
				CallPathFigure figure = CallPathFigure.measure("Spring Cloud Gateway route",
						() -> assertThat(gateway.get("/figures/1", "ann").statusCode()).isEqualTo(200));
				assertThat(figure.files()).contains("dev.ratelimit.gateway.GatewayRateLimiter",
						"dev.ratelimit.rules.internal.EngineFlow", "dev.ratelimit.redis.RedisRateLimiter");
				assertThat(backend.requests()).isEqualTo(2);
			}
		}
	}

}
