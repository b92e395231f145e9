package dev.ratelimit.autoconfigure;

import java.io.InputStream;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The IDE metadata the configuration processor writes: every property is there with a description.
 */
class ConfigurationMetadataTests {

	@Test
	void describesEveryProperty() throws Exception {
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).isNotNull();
			List<Map<String, Object>> properties = JsonPath.read(in, "$.properties");
			assertThat(properties).extracting((property) -> property.get("name"))
				.contains("ratelimit.enabled", "ratelimit.shadow", "ratelimit.key-prefix", "ratelimit.default-algorithm",
						"ratelimit.failure-mode", "ratelimit.timeout", "ratelimit.circuit-breaker.failure-threshold",
						"ratelimit.circuit-breaker.open-duration", "ratelimit.local.max-keys",
						"ratelimit.local-cache.enabled", "ratelimit.local-cache.max-keys", "ratelimit.trusted-proxies",
						"ratelimit.forwarded-header", "ratelimit.headers.enabled", "ratelimit.headers.legacy",
						"ratelimit.headers.version", "ratelimit.headers.partition-key-secret",
						"ratelimit.rules");
			assertThat(properties).allSatisfy((property) -> assertThat((String) property.get("description"))
				.as("description of %s", property.get("name"))
				.isNotBlank());
		}
	}

}
