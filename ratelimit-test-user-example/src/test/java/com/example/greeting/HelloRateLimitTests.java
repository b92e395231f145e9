package com.example.greeting;

import dev.ratelimit.test.AutoConfigureRateLimit;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureRateLimit
class HelloRateLimitTests {

	@LocalServerPort
	int port;

	@Test
	void refusesTheFourthRequestOfAMinute() {
		RestClient client = RestClient.create("http://localhost:" + this.port);
		for (int i = 0; i < 3; i++) {
			client.get().uri("/api/hello").retrieve().toBodilessEntity();
		}
		assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class)
			.isThrownBy(() -> client.get().uri("/api/hello").retrieve().toBodilessEntity());
	}

}
