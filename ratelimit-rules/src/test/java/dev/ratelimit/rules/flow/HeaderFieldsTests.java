package dev.ratelimit.rules.flow;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

class HeaderFieldsTests {

	@Test
	void givesEachNameOnceWithItsValuesJoinedInTheOrderTheyWereSet() {
		HttpHeaders headers = new HttpHeaders();
		headers.set("RateLimit-Policy", "\"per-key\";q=100;w=60");
		headers.set("RateLimit", "\"per-key\";r=99;t=60");
		headers.add("Server-Timing", "ratelimit-wait;dur=12.0");
		headers.add("server-timing", "db;dur=3");
		headers.set(HttpHeaders.RETRY_AFTER, "1");
		List<String> fields = new ArrayList<>();
		HeaderFields.forEach(headers, (name, value) -> fields.add(name + ": " + value));
		assertThat(fields).containsExactly("RateLimit-Policy: \"per-key\";q=100;w=60", "RateLimit: \"per-key\";r=99;t=60",
				"Server-Timing: ratelimit-wait;dur=12.0, db;dur=3", "Retry-After: 1");
	}

}
