package dev.ratelimit.testsupport;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RedisServerProcessTests {

	@Test
	void startsTheEmbeddedBinaryOnLoopbackAndStopsItByHandle() {
		RedisServerProcess server = RedisServerProcess.start(RedisBinary.find());
		try {
			assertThat(server.isAlive()).isTrue();
			assertThat(RedisServerProcess.ping(RedisServerProcess.HOST, server.port())).isTrue();
			assertThat(server.url()).isEqualTo("redis://127.0.0.1:" + server.port());
		}
		finally {
			server.stop();
		}
		assertThat(server.handle().isAlive()).isFalse();
		assertThat(RedisServerProcess.ping(RedisServerProcess.HOST, server.port())).isFalse();
	}

	@Test
	void takesTheUrlFromTheEnvironmentVariableFirst() {
		RedisTestServer server = RedisTestServer.locate("redis://example.invalid:7001/2", () -> {
			throw new AssertionError("Docker must not be asked when a URL is given");
		});
		assertThat(server.host()).isEqualTo("example.invalid");
		assertThat(server.port()).isEqualTo(7001);
		assertThat(server.source()).isEqualTo(RedisTestServer.URL_VARIABLE);
	}

	@Test
	void startsAServerWhenNoUrlAndNoDockerAreAvailable() {
		RedisTestServer server = RedisTestServer.locate(null, Optional::empty);
		assertThat(server.host()).isEqualTo("127.0.0.1");
		assertThat(RedisServerProcess.ping(server.host(), server.port())).isTrue();
	}

	@Test
	void reservesPortsThatRefuseConnections() {
		int port = ClosedPort.reserve();
		assertThat(RedisServerProcess.answers(RedisServerProcess.HOST, port)).isFalse();
		assertThatExceptionOfType(java.net.ConnectException.class)
			.isThrownBy(() -> new java.net.Socket(RedisServerProcess.HOST, port).close());
	}

}
