package dev.ratelimit.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * Partners' limits on the calls out ({@code ratelimit.clients.*}), on each client built from Spring Boot's builders,
 * against a real HTTP server on 127.0.0.1 that counts what it receives and two application instances on a real
 * Redis, each on its own connections: together they never call the partner more than its limit, a call waits for
 * its permit up to {@code max-wait}, and after the partner's {@code 429} with {@code Retry-After: 2} no call reaches
 * it for 2 s, from either instance.
 */
class RateLimitClientsTests {

	private static PartnerServer partner;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void start() throws Exception {
		partner = new PartnerServer();
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.data.redis.url", RedisTestServer.shared().url());
		properties.put("ratelimit.key-prefix", "clients-" + UUID.randomUUID().toString().substring(0, 8));
		properties.put("ratelimit.timeout", "5s");
		// Apache HttpClient is on the test class path (PartnerUrlFormsTests): it would retry the partner's 429 itself
		properties.put("spring.http.clients.imperative.factory", "reactor");
		for (ClientStack stack : ClientStack.values()) {
			// ten per minute in any minute, whoever calls
			client(properties, stack.prefix("shared"), "10", "1m", "0s", "sliding-window-log");
			// two per second, a call waiting up to 5 s for its permit
			client(properties, stack.prefix("waiting"), "2", "1s", "5s", "gcra");
			client(properties, stack.prefix("learning"), "100", "1m", "0s", "fixed-window");
		}
		client(properties, "capped", "100", "1m", "0s", "fixed-window");
		properties.put("ratelimit.clients.capped.max-learned-block", "1s");
		first = start(properties);
		second = start(properties);
	}

	private static void client(Map<String, Object> properties, String name, String limit, String window,
			String maxWait, String algorithm) {
		String prefix = "ratelimit.clients." + name + ".";
		properties.put(prefix + "urls", partner.url("/" + name + "/**"));
		properties.put(prefix + "limit", limit);
		properties.put(prefix + "window", window);
		properties.put(prefix + "max-wait", maxWait);
		properties.put(prefix + "algorithm", algorithm);
	}

	private static ConfigurableApplicationContext start(Map<String, Object> properties) {
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE).properties(properties).run();
	}

	@AfterAll
	static void stop() {
		if (first != null) {
			first.close();
		}
		if (second != null) {
			second.close();
		}
		partner.close();
	}

	@ParameterizedTest
	@EnumSource(ClientStack.class)
	void twoInstancesTogetherNeverCallThePartnerMoreThanItsLimit(ClientStack stack) throws Exception {
		String prefix = stack.prefix("shared");
		int threads = 20;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		CountDownLatch go = new CountDownLatch(1);
		List<Future<List<Object>>> outcomes = new ArrayList<>();
		try {
			for (int i = 0; i < threads; i++) {
				ConfigurableApplicationContext instance = (i % 2 == 0) ? first : second;
				outcomes.add(executor.submit(() -> {
					go.await();
					List<Object> mine = new ArrayList<>();
					for (int call = 0; call < 3; call++) {
						try {
							mine.add(stack.call(instance, partner.url("/" + prefix + "/items")));
						}
						catch (RateLimitExceededException ex) {
							mine.add(ex);
						}
					}
					return mine;
				}));
			}
			go.countDown();
			List<Object> all = new ArrayList<>();
			for (Future<List<Object>> outcome : outcomes) {
				all.addAll(outcome.get(60, TimeUnit.SECONDS));
			}
			assertThat(all).hasSize(60);
			assertThat(all).filteredOn((outcome) -> outcome.equals(200)).hasSize(10);
			assertThat(all).filteredOn(RateLimitExceededException.class::isInstance).hasSize(50);
			assertThat(partner.received(prefix)).isEqualTo(10);
			RateLimitExceededException refused = (RateLimitExceededException) all.stream()
				.filter(RateLimitExceededException.class::isInstance)
				.findFirst()
				.orElseThrow();
			assertThat(refused.getRule()).isEqualTo(prefix);
			assertThat(refused.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
		}
		finally {
			executor.shutdownNow();
		}
	}

	@ParameterizedTest
	@EnumSource(ClientStack.class)
	void aCallWaitsForItsPermitUpToMaxWait(ClientStack stack) {
		String prefix = stack.prefix("waiting");
		// two per second: the third to sixth calls wait for theirs, none gives up
		for (int i = 0; i < 6; i++) {
			assertThat(stack.call(first, partner.url("/" + prefix + "/items"))).isEqualTo(200);
		}
		assertThat(partner.received(prefix)).isEqualTo(6);
		MeterRegistry meters = first.getBean(MeterRegistry.class);
		assertThat(meters.get("ratelimit.client.waits").tag("client", prefix).counter().count()).isGreaterThanOrEqualTo(4);
		assertThat(meters.find("ratelimit.client.given.up").tag("client", prefix).counter()).isNull();
	}

	@ParameterizedTest
	@EnumSource(ClientStack.class)
	void afterThePartnersTooManyRequestsWithRetryAfterNoCallReachesItForThatLong(ClientStack stack) {
		String prefix = stack.prefix("learning");
		String url = partner.url("/" + prefix + "/items");
		partner.refuseNext(prefix, 2);
		assertThat(stack.call(first, url)).isEqualTo(429);
		// the other instance is told to wait, without calling
		RateLimitExceededException blocked = catchThrowableOfType(RateLimitExceededException.class,
				() -> stack.call(second, url));
		assertThat(blocked).isNotNull();
		assertThat(blocked.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
		assertThat(partner.received(prefix)).isEqualTo(1);
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).ignoreException(
				RateLimitExceededException.class).until(() -> stack.call(second, url) == 200);
		List<Long> arrivals = partner.arrivals(prefix);
		assertThat(arrivals).hasSize(2);
		assertThat(Duration.ofNanos(arrivals.get(1) - arrivals.get(0))).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
		assertThat(first.getBean(MeterRegistry.class)
			.get("ratelimit.client.partner.refusals")
			.tag("client", prefix)
			.tag("status", "429")
			.counter()
			.count()).isEqualTo(1);
	}

	@Test
	void aPartnersWaitLongerThanMaxLearnedBlockBlocksTheBudgetThatLong() {
		String url = partner.url("/capped/items");
		partner.refuseNext("capped", 86_400);
		assertThat(ClientStack.REST_CLIENT.call(first, url)).isEqualTo(429);
		RateLimitExceededException blocked = catchThrowableOfType(RateLimitExceededException.class,
				() -> ClientStack.REST_CLIENT.call(second, url));
		assertThat(blocked.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).ignoreException(
				RateLimitExceededException.class).until(() -> ClientStack.REST_CLIENT.call(second, url) == 200);
	}

	@Test
	void callsNoPartnerCoversAreNotLimited() {
		for (int i = 0; i < 20; i++) {
			assertThat(ClientStack.REST_CLIENT.call(first, partner.url("/elsewhere/items"))).isEqualTo(200);
		}
		assertThat(partner.received("elsewhere")).isEqualTo(20);
	}

	@Test
	void partnersAreListedWithTheRules() {
		RateLimitRule rule = first.getBean(RateLimitRuleRegistry.class).find(ClientStack.REST_CLIENT.prefix("shared"));
		assertThat(rule).isNotNull();
		assertThat(rule.source()).startsWith("ratelimit.clients.shared-rest-client (calls to http://127.0.0.1:");
	}

	@Test
	void anInvalidClientStopsStartupNamingItsProperty() {
		// a web application, whose property rules are in force
		assertThatThrownBy(() -> new SpringApplicationBuilder(Application.class).web(WebApplicationType.SERVLET)
			.properties(Map.of("server.address", "127.0.0.1", "server.port", "0", "spring.data.redis.url",
					RedisTestServer.shared().url(), "ratelimit.rules.partner.paths", "/api/**",
					"ratelimit.rules.partner.limit", "5", "ratelimit.rules.partner.window", "1s",
					"ratelimit.clients.partner.urls", "https://api.partner.example/**", "ratelimit.clients.partner.limit",
					"5", "ratelimit.clients.partner.window", "1s"))
			.run())
			.rootCause()
			.hasMessageContaining("ratelimit.clients.partner")
			.hasMessageContaining("already the name of the rule of ratelimit.rules.partner");
		assertThatThrownBy(() -> start(Map.of("spring.data.redis.url", RedisTestServer.shared().url(),
				"ratelimit.clients.partner.urls", "api.partner.example/**", "ratelimit.clients.partner.limit", "5",
				"ratelimit.clients.partner.window", "1s")))
			.hasRootCauseInstanceOf(InvalidConfigurationPropertyValueException.class)
			.rootCause()
			.hasMessageContaining("ratelimit.clients.partner.urls[0]")
			.hasMessageContaining("https://api.partner.example/**");
		assertThatThrownBy(() -> start(Map.of("spring.data.redis.url", RedisTestServer.shared().url(),
				"ratelimit.clients.partner.urls", "https://api.partner.example/**", "ratelimit.clients.partner.window",
				"1s")))
			.rootCause()
			.hasMessageContaining("ratelimit.clients.partner.limit");
		assertThatThrownBy(() -> start(Map.of("spring.data.redis.url", RedisTestServer.shared().url(),
				"ratelimit.clients.partner.limit", "5", "ratelimit.clients.partner.window", "1s")))
			.rootCause()
			.hasMessageContaining("ratelimit.clients.partner.urls");
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
