package com.example.greeting;

import java.time.Duration;

import dev.ratelimit.test.AutoConfigureRateLimit;
import dev.ratelimit.test.RateLimitTestClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A window ends when the test moves the clock, not while it waits.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureRateLimit(clock = true)
class MovedClockTests {

	@LocalServerPort
	int port;

	@Autowired
	RateLimitTestClock clock;

	@Test
	void aRefusedClientIsLetThroughOnceTheClockLeavesTheWindow() {
		assertThat(statuses(4)).containsExactly(200, 200, 200, 429);
		this.clock.advance(Duration.ofSeconds(59));
		assertThat(statuses(1)).containsExactly(429);
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(statuses(4)).containsExactly(200, 200, 200, 429);
	}

	private int[] statuses(int requests) {
		RestClient client = RestClient.create("http://localhost:" + this.port);
		int[] statuses = new int[requests];
		for (int i = 0; i < requests; i++) {
			statuses[i] = client.get()
				.uri("/api/hello")
				.exchange((request, response) -> response.getStatusCode())
				.value();
		}
		return statuses;
	}

}
