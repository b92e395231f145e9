package dev.ratelimit.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one place that reads Netty's internal thread-to-loop map, against the Netty of the Spring Boot line the
 * build runs on (.ci/run runs it on each): a Netty upgrade that moves or empties the map fails here, instead of
 * leaving asynchronous answers on Lettuce's thread.
 */
class CurrentEventLoopTests {

	@Test
	void isAvailableWithTheNettyOfThisBuild() {
		assertThat(CurrentEventLoop.isAvailable()).isTrue();
	}

	@Test
	void findsTheEventLoopThatRunsTheCallingTask() throws Exception {
		EventExecutor loop = new DefaultEventExecutor();
		try {
			assertThat(loop.submit(CurrentEventLoop::get).get(5, TimeUnit.SECONDS)).isSameAs(loop);
		}
		finally {
			loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
		}
	}

	@Test
	void findsNoLoopOnAThreadThatRunsNone() throws Exception {
		AtomicReference<Object> found = new AtomicReference<>("not run");
		Thread thread = new Thread(() -> found.set(CurrentEventLoop.get()));
		thread.start();
		thread.join();
		assertThat(found.get()).isNull();
		assertThat(CompletableFuture.supplyAsync(CurrentEventLoop::get).get()).isNull();
	}

	@Test
	void findsTheLoopOfTheConnectionInACallbackOfLettucesReply() throws Exception {
		// what LettuceScriptRunner learns its connection's loop from
		RedisClient client = RedisClient.create(RedisTestServer.shared().url());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			AtomicReference<Boolean> inLoop = new AtomicReference<>();
			// a reply 200 ms away, so that the callback is in place before it arrives and runs where Lettuce reads it
			EventExecutor loop = connection.async().blpop(0.2, "current-event-loop-none").toCompletableFuture()
				.thenApply((none) -> {
					EventExecutor current = CurrentEventLoop.get();
					inLoop.set(current != null && current.inEventLoop());
					return current;
				})
				.get(5, TimeUnit.SECONDS);
			assertThat(loop).isNotNull();
			assertThat(inLoop.get()).isTrue();
			assertThat(CurrentEventLoop.get()).isNull();
		}
		finally {
			client.shutdown();
		}
	}

}
