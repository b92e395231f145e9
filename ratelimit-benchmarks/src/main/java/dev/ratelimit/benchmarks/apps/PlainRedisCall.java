package dev.ratelimit.benchmarks.apps;

import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

/**
 * The Redis call of a rule made by hand in a handler, with nothing of ratelimit: a fixed-window script
 * ({@code INCR}, {@code PEXPIRE} when the window opens) by {@code EVALSHA} over one shared Lettuce connection,
 * waited for on the request's thread (servlet) or not (WebFlux). What a request with it costs beyond one without
 * it is what a Redis call costs the stack, the bound of what a rule can cost.
 */
public final class PlainRedisCall implements AutoCloseable {

	private static final String SCRIPT = "local count = redis.call('INCR', KEYS[1]) "
			+ "if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return count";

	private static final String[] WINDOW = { "3600000" };

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final String sha;

	public PlainRedisCall(String url) {
		this(url, null);
	}

	/** On the given client resources (their event loops), or Lettuce's own when {@code null}. */
	public PlainRedisCall(String url, @Nullable ClientResources resources) {
		this.client = (resources != null) ? RedisClient.create(resources, RedisURI.create(url))
				: RedisClient.create(RedisURI.create(url));
		this.connection = this.client.connect();
		this.sha = this.connection.sync().scriptLoad(SCRIPT);
	}

	/** Calls the script and waits for its answer. */
	public long call(String key) {
		Long count = this.connection.sync().evalsha(this.sha, ScriptOutputType.INTEGER, new String[] { "plain:" + key }, WINDOW);
		return (count != null) ? count : -1;
	}

	/** Calls the script. */
	public CompletableFuture<Long> callAsync(String key) {
		return this.connection.async()
			.<Long>evalsha(this.sha, ScriptOutputType.INTEGER, new String[] { "plain:" + key }, WINDOW)
			.toCompletableFuture();
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
