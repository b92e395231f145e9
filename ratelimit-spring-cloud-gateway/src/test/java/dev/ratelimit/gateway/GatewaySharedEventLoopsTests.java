package dev.ratelimit.gateway;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.testsupport.LettuceThreads;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.http.client.ReactorResourceFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.lettuce.shared-event-loops} on a real Spring Cloud Gateway route: the gateway's Lettuce connections
 * run on its Netty server's event loops, Lettuce starts no I/O thread of its own, and the route's limit holds exactly.
 * WebFlux's test is {@code RateLimitSharedEventLoopsTests}.
 */
class GatewaySharedEventLoopsTests {

	@Test
	void runsTheGatewaysLettuceConnectionsOnTheServersEventLoops() {
		Set<String> before = LettuceThreads.ownIoThreads();
		Map<String, Object> properties = TestGateway.properties();
		properties.put("ratelimit.lettuce.shared-event-loops", "true");
		try (Backend backend = Backend.start();
				TestGateway gateway = TestGateway.start(
						TestGateway.route(properties, backend, "orders", "ratelimit.limit=2", "ratelimit.window=1h"))) {
			assertThat(gateway.get("/orders/1", "alpha").statusCode()).isEqualTo(200);
			assertThat(gateway.get("/orders/1", "alpha").statusCode()).isEqualTo(200);
			assertThat(gateway.get("/orders/1", "alpha").statusCode()).isEqualTo(429);
			assertThat(gateway.get("/orders/1", "beta").statusCode()).as("another client").isEqualTo(200);
			Thread reply = LettuceThreads.replyThread(gateway.context().getBean(LettuceConnectionFactory.class));
			assertThat(LettuceThreads.isOneOf(reply,
					gateway.context().getBean(ReactorResourceFactory.class).getLoopResources().onServer(LettuceThreads.nativeTransport())))
				.as("%s is a loop of the server", reply.getName())
				.isTrue();
			Set<String> started = new HashSet<>(LettuceThreads.ownIoThreads());
			started.removeAll(before);
			assertThat(started).as("I/O threads of Lettuce's own").isEmpty();
		}
	}

}
