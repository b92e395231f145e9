package dev.ratelimit.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterUnavailableException;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.testsupport.RedisServerProcess;
import dev.ratelimit.testsupport.RedisTlsFiles;
import dev.ratelimit.testsupport.RequiredRedisBinary;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The limiters through the auto-configuration against a {@code redis-server} that serves TLS only to a
 * certificate generated for the run, and that lets the application's user run only what the limiters need:
 * the ACL line docs/operations.md gives. Each test runs against the embedded Redis 6.2 and the installed Redis 7.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecuredRedisIntegrationTests {

	/** The ACL rules of docs/operations.md for the application's user, after {@code ACL SETUSER ratelimit on >password}. */
	static final String ACL_RULES = "~rate:* resetchannels -@all +evalsha +eval +script|load +time +get +set +del "
			+ "+hmget +hset +hincrby +pexpire +pttl +zadd +zcard +zcount +zrange +zrangebyscore +zremrangebyscore";

	private static final String PASSWORD = "s3cret-for-the-test";

	private static final RateLimit THREE_PER_MINUTE = RateLimit.of(3, Duration.ofMinutes(1));

	@TempDir
	static Path certificates;

	private static RedisTlsFiles tls;

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations
		.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class));

	@BeforeAll
	static void generateCertificate() {
		tls = RedisTlsFiles.generate(certificates);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "embedded", "installed" })
	void everyAlgorithmWorksForTheAclUserOverTls(String selection) {
		try (RedisServerProcess server = startSecured(RequiredRedisBinary.find(selection, true))) {
			// a functional test: the first TLS handshake on a loaded machine must not meet the failure mode
			this.runner.withPropertyValues(secured(server, PASSWORD)).withPropertyValues("ratelimit.timeout=5s").run((context) -> {
				assertThat(context.getBeansOfType(RateLimiter.class)).hasSize(Algorithm.values().length);
				for (RateLimiter limiter : context.getBeansOfType(RateLimiter.class).values()) {
					String key = "secured-" + limiter.algorithm();
					assertThat(allowedOfFour(limiter, key)).as(limiter.algorithm().toString())
						.containsExactly(true, true, true, false);
					assertThat(limiter.inspect(key, List.of(THREE_PER_MINUTE)).get(0).remaining()).isZero();
					assertThat(limiter.reset(key, List.of(THREE_PER_MINUTE))).isPositive();
					assertThat(limiter.tryAcquire(key, THREE_PER_MINUTE).allowed()).isTrue();
				}
			});
			assertTheUserCanDoNothingElse(server);
		}
	}

	@Test
	void aFreshInstanceStartedWhileOtherProcessesKeepTheCpusBusyHoldsItsLimitsFromTheFirstRequest() {
		try (RedisServerProcess server = startSecured(RequiredRedisBinary.find("installed", true));
				BusyCpus busy = BusyCpus.start()) {
			// the default ratelimit.timeout (200ms): the TLS handshake, the ACL user's AUTH and the scripts' loading
			// happen while the application starts, not in its first decisions
			this.runner.withPropertyValues(secured(server, PASSWORD)).run((context) -> {
				for (RateLimiter limiter : context.getBeansOfType(RateLimiter.class).values()) {
					assertThat(allowedOfFour(limiter, "fresh-" + limiter.algorithm())).as(limiter.algorithm().toString())
						.containsExactly(true, true, true, false);
				}
			});
		}
	}

	@Test
	void aWrongPasswordFailsAsRedisDownDoesWithOneWarning(CapturedOutput output) {
		try (RedisServerProcess server = startSecured(RequiredRedisBinary.find("embedded", true))) {
			this.runner.withPropertyValues(secured(server, "not-the-password")).run((context) -> {
				FixedWindowRateLimiter limiter = context.getBean(FixedWindowRateLimiter.class);
				for (int i = 0; i < 10; i++) {
					assertThatExceptionOfType(RateLimiterUnavailableException.class)
						.isThrownBy(() -> limiter.tryAcquire("wrong-password", THREE_PER_MINUTE));
				}
			});
			this.runner.withPropertyValues(secured(server, "not-the-password"))
				.withPropertyValues("ratelimit.failure-mode=local")
				.run((context) -> assertThat(allowedOfFour(context.getBean(FixedWindowRateLimiter.class), "local"))
					.containsExactly(true, true, true, false));
		}
		// one warning when the breaker opens after five failed calls, as when Redis is down; nothing per call (the
		// local mode's four calls stay below the threshold)
		assertThat(output.getOut().lines().filter((line) -> line.contains(" WARN ") && line.contains("dev.ratelimit")))
			.singleElement()
			.satisfies((line) -> assertThat(line).contains("Redis is unavailable after 5 failed calls in a row"));
	}

	private static List<Boolean> allowedOfFour(RateLimiter limiter, String key) {
		List<Boolean> allowed = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			RateLimitDecision decision = limiter.tryAcquire(key, THREE_PER_MINUTE);
			allowed.add(decision.allowed());
		}
		return allowed;
	}

	private static void assertTheUserCanDoNothingElse(RedisServerProcess server) {
		RedisURI uri = RedisURI.builder()
			.withHost(RedisServerProcess.HOST)
			.withPort(server.port())
			.withAuthentication("ratelimit", PASSWORD)
			.build();
		RedisClient client = RedisClient.create(uri);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			assertThat(redis.get("rate:anything")).isNull();
			assertThatExceptionOfType(RedisCommandExecutionException.class).isThrownBy(() -> redis.get("other:key"))
				.withMessageStartingWith("NOPERM");
			assertThatExceptionOfType(RedisCommandExecutionException.class).isThrownBy(redis::flushall)
				.withMessageStartingWith("NOPERM");
			assertThatExceptionOfType(RedisCommandExecutionException.class).isThrownBy(() -> redis.keys("*"))
				.withMessageStartingWith("NOPERM");
		}
		finally {
			client.shutdown();
		}
	}

	private static RedisServerProcess startSecured(Path binary) {
		List<String> user = new ArrayList<>(List.of("--user", "ratelimit", "on", ">" + PASSWORD));
		user.addAll(List.of(ACL_RULES.split(" ")));
		return RedisServerProcess.startWithTls(binary, tls, user.toArray(String[]::new));
	}

	private static String[] secured(RedisServerProcess server, String password) {
		Map<String, String> properties = Map.of("spring.data.redis.host", RedisServerProcess.HOST,
				"spring.data.redis.port", Integer.toString(server.tlsPort()), "spring.data.redis.username",
				"ratelimit", "spring.data.redis.password", password, "spring.data.redis.ssl.bundle", "redis-test",
				"spring.ssl.bundle.pem.redis-test.truststore.certificate", tls.certificate().toUri().toString());
		return properties.entrySet().stream().map((entry) -> entry.getKey() + "=" + entry.getValue()).toArray(String[]::new);
	}

}
