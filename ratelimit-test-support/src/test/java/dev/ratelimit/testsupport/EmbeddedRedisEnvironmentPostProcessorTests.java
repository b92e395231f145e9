package dev.ratelimit.testsupport;

import org.junit.jupiter.api.Test;


import org.springframework.boot.logging.DeferredLogs;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedRedisEnvironmentPostProcessorTests {

	private final EmbeddedRedisEnvironmentPostProcessor processor = new EmbeddedRedisEnvironmentPostProcessor(
			new DeferredLogs());

	@Test
	void startsARedisAndPointsTheApplicationAtItWhenNoneAnswers() {
		MockEnvironment environment = new MockEnvironment().withProperty("spring.data.redis.url",
				"redis://127.0.0.1:" + ClosedPort.reserve());
		RedisServerProcess server = this.processor.startIfNoneAnswers(environment);
		try {
			assertThat(server).isNotNull();
			assertThat(environment.getProperty("spring.data.redis.url")).isEqualTo(server.url());
			assertThat(RedisServerProcess.ping("127.0.0.1", server.port())).isTrue();
		}
		finally {
			server.stop();
		}
		assertThat(server.isAlive()).isFalse();
	}

	@Test
	void usesTheConfiguredRedisWhenItAnswers() {
		RedisTestServer redis = RedisTestServer.shared();
		MockEnvironment environment = new MockEnvironment().withProperty("spring.data.redis.host", redis.host())
			.withProperty("spring.data.redis.port", Integer.toString(redis.port()));
		assertThat(this.processor.startIfNoneAnswers(environment)).isNull();
		assertThat(environment.getProperty("spring.data.redis.url")).isNull();
	}

	@Test
	void startsNothingWhenDisabled() {
		MockEnvironment environment = new MockEnvironment().withProperty("sample.embedded-redis.enabled", "false")
			.withProperty("spring.data.redis.port", Integer.toString(ClosedPort.reserve()));
		assertThat(this.processor.startIfNoneAnswers(environment)).isNull();
	}

}
