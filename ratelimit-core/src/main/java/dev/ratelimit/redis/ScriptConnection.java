package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The script runner's own connection: opened on a thread of its own (a connect may block for the
 * client's connect timeout), shared by every call, and opened afresh by the next call after it failed
 * or was closed under us. Failures come out as Spring's data access exceptions.
 */
final class ScriptConnection {

	private final LettuceConnectionFactory connectionFactory;

	private final StallClock stallClock;

	private volatile @Nullable CompletableFuture<Connected> connection;

	ScriptConnection(LettuceConnectionFactory connectionFactory, StallClock stallClock) {
		this.connectionFactory = connectionFactory;
		this.stallClock = stallClock;
	}

	/** The open connection, or the one being opened: a failed connect is tried again. */
	CompletableFuture<Connected> connect() {
		CompletableFuture<Connected> current = this.connection;
		if (current != null && !current.isCompletedExceptionally()) {
			return current;
		}
		synchronized (this) {
			current = this.connection;
			if (current == null || current.isCompletedExceptionally()) {
				current = CompletableFuture.supplyAsync(this::open, (task) -> {
					Thread thread = new Thread(task, "ratelimit-redis-connect");
					thread.setDaemon(true);
					thread.start();
				});
				this.connection = current;
			}
			return current;
		}
	}

	/**
	 * Opens the connection (the TLS handshake, authentication, a Sentinel's discovery of the master), and sends
	 * what makes its first calls as fast as later ones: a {@code PING}, whose reply tells the stall clock the
	 * connection's event loop, and every script, loaded ({@code SCRIPT LOAD}) ahead of the calls that run it. A
	 * call sent once this returns goes after them on the same connection.
	 */
	@SuppressWarnings("unchecked")
	private Connected open() {
		RedisConnection redisConnection = this.connectionFactory.getConnection();
		RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) redisConnection
			.getNativeConnection();
		this.stallClock.forgetLoop();
		List<CompletableFuture<?>> ready = new ArrayList<>();
		ready.add(commands.ping().whenComplete((pong, failure) -> this.stallClock.learnLoop()).toCompletableFuture());
		for (RedisScript<List> script : RedisScripts.all()) {
			// a user whose ACL lacks SCRIPT LOAD, or a server that forgets them, gets them from EVAL on NOSCRIPT
			ready.add(commands.scriptLoad(script.getScriptAsString().getBytes(StandardCharsets.UTF_8))
				.toCompletableFuture()
				.exceptionally((failure) -> null));
		}
		return new Connected(redisConnection, commands,
				CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)));
	}

	/**
	 * Asks the server whether it answers ({@code PING}) and knows every script ({@code SCRIPT EXISTS}); a script it
	 * has forgotten (a restarted or flushed server) is loaded again, as at the connection's opening.
	 * @return completes once the server answered and holds every script; exceptionally, translated, otherwise
	 */
	CompletableFuture<Void> probe() {
		return connect().thenCompose((connected) -> {
			RedisClusterAsyncCommands<byte[], byte[]> commands = connected.commands();
			List<RedisScript<List>> scripts = RedisScripts.all();
			String[] digests = scripts.stream().map(RedisScript::getSha1).toArray(String[]::new);
			return commands.ping()
				.thenCompose((pong) -> commands.scriptExists(digests))
				.thenCompose((known) -> {
					List<CompletableFuture<?>> loads = new ArrayList<>();
					for (int i = 0; i < scripts.size(); i++) {
						if (!Boolean.TRUE.equals(known.get(i))) {
							loads.add(commands.scriptLoad(scripts.get(i).getScriptAsString().getBytes(StandardCharsets.UTF_8))
								.toCompletableFuture());
						}
					}
					return CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
				})
				.toCompletableFuture()
				.handle((done, failure) -> {
					if (failure != null) {
						throw translate((failure instanceof CompletionException && failure.getCause() != null)
								? failure.getCause() : failure, connected);
					}
					return null;
				});
		});
	}

	/**
	 * Turns a failure of a script call into Spring's exceptions; a connection that failed to open or was
	 * closed under us is dropped, for the next call to connect afresh.
	 * @param connected the connection the call went on, {@code null} when it could not be opened
	 */
	RuntimeException translate(Throwable cause, @Nullable Connected connected) {
		if (cause instanceof RedisNoScriptException) {
			return new RedisSystemException("NOSCRIPT", cause);
		}
		if (cause instanceof RedisCommandExecutionException) {
			return new RedisSystemException("Redis answered the rate-limit script with an error: " + cause.getMessage(), cause);
		}
		if (connected == null || (cause instanceof RedisException && !connected.isOpen())) {
			this.connection = null;
			if (connected != null) {
				connected.connection().close();
			}
			return new RedisConnectionFailureException("Could not reach Redis: " + cause, cause);
		}
		return new RedisSystemException("Redis failed to run the rate-limit script: " + cause, cause);
	}

	/** Closes the connection; one still being opened is closed as soon as it is. */
	void close() {
		CompletableFuture<Connected> current = this.connection;
		this.connection = null;
		if (current != null) {
			current.thenAccept((connected) -> connected.connection().close());
		}
	}

	/**
	 * An open connection.
	 * @param connection the connection
	 * @param commands its asynchronous commands
	 * @param ready completes once the server answered its {@code PING} and loaded the scripts
	 */
	record Connected(RedisConnection connection, RedisClusterAsyncCommands<byte[], byte[]> commands,
			CompletableFuture<Void> ready) {

		boolean isOpen() {
			if (this.commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
				return standalone.getStatefulConnection().isOpen();
			}
			if (this.commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
				return cluster.getStatefulConnection().isOpen();
			}
			return !this.connection.isClosed();
		}

	}

}
