package dev.ratelimit.gateway;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule from properties whose paths only a gateway route serves is not warned of as mapped by no handler: the routes'
 * predicates cannot be read, and any path may be a route's.
 */
@ExtendWith(OutputCaptureExtension.class)
class GatewayUnmappedRulesTests {

	@Test
	void warnsOfNoRuleWhosePathsOnlyARouteServes(CapturedOutput output) {
		try (Backend backend = Backend.start()) {
			Map<String, Object> properties = TestGateway.properties();
			TestGateway.unlimitedRoute(properties, backend, "routed");
			properties.put("ratelimit.rules.routed.paths", "/routed/**");
			properties.put("ratelimit.rules.routed.limit", "1");
			properties.put("ratelimit.rules.routed.window", "1h");
			try (TestGateway gateway = TestGateway.start(properties)) {
				assertThat(gateway.get("/routed/1", "client").statusCode()).isEqualTo(200);
				assertThat(gateway.get("/routed/1", "client").statusCode()).isEqualTo(429);
				assertThat(output.getAll()).contains("Started")
					.doesNotContain("matches no path a handler of this application maps");
			}
		}
	}

}
