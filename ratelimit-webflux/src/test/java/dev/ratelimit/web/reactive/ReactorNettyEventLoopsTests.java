package dev.ratelimit.web.reactive;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.testsupport.LettuceThreads;
import dev.ratelimit.testsupport.RedisTestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.Test;
import reactor.netty.resources.LoopResources;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ReactorNettyEventLoops} with a real Redis: a Lettuce client on it reads its replies on the given server
 * loops, and shutting the client and its resources down leaves those loops running (they are Reactor Netty's).
 */
class ReactorNettyEventLoopsTests {

	@Test
	void connectsOnTheServerLoopsAndLeavesThemRunningWhenLettuceShutsDown() throws Exception {
		LoopResources loops = LoopResources.create("test-server", 2, true);
		try {
			ClientResources resources = ClientResources.builder()
				.eventLoopGroupProvider(new ReactorNettyEventLoops(() -> loops))
				.build();
			RedisClient client = RedisClient.create(resources, RedisURI.create(RedisTestServer.shared().url()));
			EventLoopGroup server = loops.onServer(LettuceThreads.nativeTransport());
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				// subscribed before the command is sent: the reply is emitted on the thread that read it
				Thread reply = connection.reactive().ping().map((pong) -> Thread.currentThread())
					.block(Duration.ofSeconds(10));
				assertThat(LettuceThreads.isOneOf(reply, server)).as("%s is a server loop", reply.getName()).isTrue();
				assertThat(reply.getName()).startsWith("test-server");
			}
			finally {
				client.shutdown();
				resources.shutdown().get(10, TimeUnit.SECONDS);
			}
			assertThat(server.isShuttingDown()).isFalse();
			assertThat(server.submit(() -> "still serving").get(10, TimeUnit.SECONDS)).isEqualTo("still serving");
		}
		finally {
			loops.disposeLater().block();
		}
	}

}
