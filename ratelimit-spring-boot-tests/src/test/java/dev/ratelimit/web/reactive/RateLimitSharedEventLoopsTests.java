package dev.ratelimit.web.reactive;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.testsupport.LettuceThreads;
import dev.ratelimit.web.StackApp;
import dev.ratelimit.web.WebStack;
import io.netty.util.concurrent.EventExecutor;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.http.client.ReactorResourceFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code ratelimit.lettuce.shared-event-loops} on WebFlux with a real Netty server and Redis: the application's Lettuce
 * connections run on the server's event loops (a reply arrives on one of them, and Lettuce starts no I/O thread of
 * its own) and the rules decide exactly as before; without it Lettuce keeps its own threads; on a servlet application
 * the property stops startup, naming it. The gateway's test is {@code GatewaySharedEventLoopsTests}.
 */
class RateLimitSharedEventLoopsTests {

	private static final Map<String, String> RULE = Map.of("ratelimit.rules.orders.paths", "/api/**",
			"ratelimit.rules.orders.key", "header:X-Api-Key", "ratelimit.rules.orders.limit", "3",
			"ratelimit.rules.orders.window", "1h");

	@Test
	void runsTheApplicationsLettuceConnectionsOnTheServersEventLoops() {
		Set<String> before = LettuceThreads.ownIoThreads();
		Map<String, String> properties = new java.util.HashMap<>(RULE);
		properties.put("ratelimit.lettuce.shared-event-loops", "true");
		try (StackApp app = WebStack.WEBFLUX.start(properties)) {
			for (int i = 0; i < 3; i++) {
				assertThat(app.get("/api/orders", "X-Api-Key", "alpha").status()).as("request %d", i + 1).isEqualTo(200);
			}
			assertThat(app.get("/api/orders", "X-Api-Key", "alpha").status()).isEqualTo(429);
			assertThat(app.get("/api/orders", "X-Api-Key", "beta").status()).as("another key").isEqualTo(200);
			Thread reply = LettuceThreads.replyThread(app.context().getBean(LettuceConnectionFactory.class));
			assertThat(LettuceThreads.isOneOf(reply, serverLoops(app))).as("%s is a loop of the server", reply.getName())
				.isTrue();
			Set<String> started = new HashSet<>(LettuceThreads.ownIoThreads());
			started.removeAll(before);
			assertThat(started).as("I/O threads of Lettuce's own").isEmpty();
			assertThat(app.context().getBean(ClientResources.class).eventLoopGroupProvider())
				.isInstanceOf(ReactorNettyEventLoops.class);
		}
	}

	@Test
	void leavesLettuceOnItsOwnThreadsByDefault() {
		try (StackApp app = WebStack.WEBFLUX.start(RULE)) {
			assertThat(app.get("/api/orders", "X-Api-Key", "alpha").status()).isEqualTo(200);
			Thread reply = LettuceThreads.replyThread(app.context().getBean(LettuceConnectionFactory.class));
			assertThat(LettuceThreads.isOneOf(reply, serverLoops(app))).as("%s is a loop of the server", reply.getName())
				.isFalse();
		}
	}

	@Test
	void stopsAServletApplicationsStartupNamingTheProperty() {
		assertThatThrownBy(() -> WebStack.SERVLET.start(Map.of("ratelimit.lettuce.shared-event-loops", "true")).close())
			.satisfies((thrown) -> assertThat(NestedExceptionUtils.getMostSpecificCause(thrown))
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("ratelimit.lettuce.shared-event-loops")
				.hasMessageContaining("Reactor Netty server"));
	}

	private static Iterable<EventExecutor> serverLoops(StackApp app) {
		return app.context()
			.getBean(ReactorResourceFactory.class)
			.getLoopResources()
			.onServer(LettuceThreads.nativeTransport());
	}

}
