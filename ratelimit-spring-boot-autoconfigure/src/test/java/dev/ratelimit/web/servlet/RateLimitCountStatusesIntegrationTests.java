package dev.ratelimit.web.servlet;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rule that counts only failed sign-ins (401): checked before the handler, charged after the response
 * by its status, on Tomcat and a real Redis.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.rules.sign-in.paths=/sign-in", "ratelimit.rules.sign-in.key=param:user",
				"ratelimit.rules.sign-in.limit=2", "ratelimit.rules.sign-in.window=15m",
				"ratelimit.rules.sign-in.count-statuses=401" })
class RateLimitCountStatusesIntegrationTests extends RedisBackedWebTests {

	@Test
	void chargesFailuresOnlyAndRefusesOnceTheyAreSpent() throws Exception {
		for (int i = 0; i < 5; i++) {
			assertThat(get(this.port, "/sign-in?user=ann&password=secret").statusCode()).isEqualTo(200);
		}
		HttpResponse<String> first = get(this.port, "/sign-in?user=ann&password=guess");
		assertThat(first.statusCode()).isEqualTo(401);
		// the headers tell the budget as the request found it, before its failure was charged
		assertThat(first.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"sign-in\";r=2;");
		assertThat(get(this.port, "/sign-in?user=ann&password=guess").statusCode()).isEqualTo(401);
		HttpResponse<String> refused = get(this.port, "/sign-in?user=ann&password=secret");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		// another user's failures are apart
		assertThat(get(this.port, "/sign-in?user=bob&password=guess").statusCode()).isEqualTo(401);
	}

	@Test
	void letsAtMostTheRequestsInFlightThroughWhenTheBudgetRunsOut() throws Exception {
		int threads = 8;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		List<Integer> statuses = new ArrayList<>();
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Integer>> answers = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				answers.add(pool.submit(() -> {
					start.await();
					return get(this.port, "/sign-in?user=carol&password=guess").statusCode();
				}));
			}
			start.countDown();
			for (Future<Integer> answer : answers) {
				statuses.add(answer.get(30, TimeUnit.SECONDS));
			}
		}
		finally {
			pool.shutdownNow();
		}
		// every request checked before any was charged may fail: up to the requests in flight, never more
		long failed = statuses.stream().filter((status) -> status == 401).count();
		assertThat(failed).isBetween(2L, (long) threads);
		assertThat(statuses).allMatch((status) -> status == 401 || status == 429);
		// the budget itself was never charged past its limit, and the next attempt is refused
		assertThat(get(this.port, "/sign-in?user=carol&password=secret").statusCode()).isEqualTo(429);
	}

}
