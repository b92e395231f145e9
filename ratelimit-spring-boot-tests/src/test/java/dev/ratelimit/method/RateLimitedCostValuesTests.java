package dev.ratelimit.method;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The values a {@code @RateLimited} bean method's SpEL costs may take: a {@code cost} expression is charged only when
 * it is an exact whole number from 0 to {@link RateLimiter#MAX_COST}, whatever its {@code Number} type (2^64 is not
 * its low 64 bits, 0), else the call is refused with an error naming the expression; a {@code costFrom} result that
 * is no such number ({@code NaN}, a fraction, out of range) keeps the reservation.
 */
class RateLimitedCostValuesTests {

	private static final BigInteger TWO_TO_THE_64 = BigInteger.ONE.shiftLeft(64);

	private static final List<RateLimit> HOURLY = List.of(RateLimit.of(10, Duration.ofHours(1)));

	private static final List<RateLimit> DAILY = List.of(RateLimit.of(1000, Duration.ofDays(1)));

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.properties(Map.of("spring.data.redis.url", RedisTestServer.shared().url(), "ratelimit.key-prefix",
					"method-cost-values-" + UUID.randomUUID().toString().substring(0, 8), "ratelimit.timeout", "5s"))
			.run();
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	private static long remaining(String key, List<RateLimit> limits) {
		RateLimiter limiter = context.getBean("fixedWindowRateLimiter", RateLimiter.class);
		return limiter.inspect(key, limits).get(0).remaining();
	}

	@Test
	void refusesACostThatIsNoExactWholeNumberInRangeWhateverItsType() {
		Jobs jobs = context.getBean(Jobs.class);
		List<Number> wrong = List.of(TWO_TO_THE_64, TWO_TO_THE_64.negate().add(BigInteger.valueOf(5)),
				new BigDecimal(TWO_TO_THE_64), new BigDecimal("2.5"), 2.5d, Double.NaN, Double.POSITIVE_INFINITY,
				RateLimiter.MAX_COST + 1, Long.MAX_VALUE, -1);
		for (Number cost : wrong) {
			assertThatIllegalArgumentException().as("cost %s", cost)
				.isThrownBy(() -> jobs.run("wrong", cost))
				.withMessageContaining("Jobs.run")
				.withMessageContaining("#cost")
				.withMessageContaining(cost.toString());
		}
		// none of them ran, none was charged
		assertThat(jobs.runs()).isZero();
		assertThat(remaining("jobs:expression:wrong", HOURLY)).isEqualTo(10);
	}

	@Test
	void fifteenCallsOfAHugeCostNeverPassALimitOfTen() {
		Jobs jobs = context.getBean(Jobs.class);
		int before = jobs.runs();
		int passed = 0;
		for (int i = 0; i < 15; i++) {
			try {
				jobs.run("huge", TWO_TO_THE_64);
				passed++;
			}
			catch (IllegalArgumentException ex) {
				// a mistake in the call, never let through
			}
		}
		assertThat(passed).isZero();
		assertThat(jobs.runs() - before).isZero();
	}

	@Test
	void chargesAWholeNumberOfAnyNumberType() {
		Jobs jobs = context.getBean(Jobs.class);
		jobs.run("exact", new BigDecimal("3.000"));
		jobs.run("exact", BigInteger.valueOf(4));
		jobs.run("exact", 2.0d);
		assertThat(remaining("jobs:expression:exact", HOURLY)).isEqualTo(1);
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> jobs.run("exact", (short) 2));
	}

	@Test
	void aCostFromResultThatIsNoWholeNumberInRangeKeepsTheReservation() {
		Jobs jobs = context.getBean(Jobs.class);
		List<Number> wrong = List.of(Double.NaN, 2.5d, new BigDecimal("0.5"), TWO_TO_THE_64,
				BigInteger.valueOf(RateLimiter.MAX_COST).add(BigInteger.ONE), Long.MAX_VALUE, -3);
		for (Number result : wrong) {
			String user = "u-" + UUID.randomUUID().toString().substring(0, 8);
			assertThat(jobs.complete(user, result)).isEqualTo(result);
			// a second call reserves 100 and settles at 50 (its settlement sent after the first's): the first's
			// reservation of 100 stands, 1000 - 100 - 50; had it been given back, 950
			jobs.complete(user, 50);
			await().atMost(Duration.ofSeconds(10)).until(() -> remaining("tokens:expression:" + user, DAILY) == 850);
		}
		String exact = "u-" + UUID.randomUUID().toString().substring(0, 8);
		jobs.complete(exact, new BigDecimal("250"));
		await().atMost(Duration.ofSeconds(10)).until(() -> remaining("tokens:expression:" + exact, DAILY) == 750);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Jobs.class)
	static class Application {

	}

	static class Jobs {

		private final AtomicInteger runs = new AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@RateLimited(name = "jobs", limit = 10, window = "1h", key = "#user", cost = "#cost")
		public void run(String user, Number cost) {
			this.runs.incrementAndGet();
		}

		@RateLimited(name = "tokens", limit = 1000, window = "1d", cost = "100", costFrom = "#result", key = "#user")
		public Number complete(String user, Number tokens) {
			return tokens;
		}

	}

}
