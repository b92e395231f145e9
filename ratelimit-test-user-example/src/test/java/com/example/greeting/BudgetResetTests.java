package com.example.greeting;

import dev.ratelimit.test.AutoConfigureRateLimit;
import dev.ratelimit.test.RateLimitBudgets;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each test spends the whole budget of {@code /api/hello} (3 a minute) and starts from a full one: whichever runs
 * second fails unless every budget is reset before each test. {@link HelloRateLimitTests} shares their cached
 * context, and spends the same budget.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureRateLimit
class BudgetResetTests {

	@LocalServerPort
	int port;

	@Autowired
	RateLimitBudgets budgets;

	@Test
	void oneTestSpendsTheWholeBudget() {
		assertThat(statuses(4)).containsExactly(200, 200, 200, 429);
	}

	@Test
	void anotherTestFindsTheBudgetFullAgain() {
		assertThat(statuses(4)).containsExactly(200, 200, 200, 429);
	}

	@Test
	void aResetInTheMiddleOfATestGivesTheBudgetBack() {
		assertThat(statuses(4)).containsExactly(200, 200, 200, 429);
		assertThat(this.budgets.resetAll()).isPositive();
		assertThat(statuses(1)).containsExactly(200);
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
