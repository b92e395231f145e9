package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends scripts on the {@link ScriptConnection}: {@code EVALSHA}, and {@code EVAL} when the server does
 * not know the script (a restarted or new server; later calls find it), written once for every call.
 */
final class ScriptCommands {

	private final ScriptConnection connection;

	private final StallClock stallClock;

	ScriptCommands(ScriptConnection connection, StallClock stallClock) {
		this.connection = connection;
		this.stallClock = stallClock;
	}

	/**
	 * Connects when not connected, sends the script and hands its reply or translated failure to
	 * {@code done}, on the connection's event loop (or the connecting thread). A call its caller gave up
	 * on while the connection was being opened is not sent, nor sent again as {@code EVAL} after a
	 * {@code NOSCRIPT}.
	 * @param pending the call, or {@code null} when several calls travel in one
	 */
	void send(RedisScript<List> script, byte[][] keys, byte[][] args, @Nullable PendingCall pending, Reply done) {
		this.connection.connect().whenComplete((connected, failure) -> {
			if (failure != null) {
				done.accept(null, this.connection.translate(Futures.unwrap(failure), null));
				return;
			}
			if (pending != null && pending.answer.isDone()) {
				return;
			}
			evaluate(connected, script, keys, args, pending, done);
		});
	}

	private void evaluate(ScriptConnection.Connected connected, RedisScript<List> script, byte[][] keys,
			byte[][] args, @Nullable PendingCall pending, Reply done) {
		RedisFuture<List<?>> evalsha;
		try {
			evalsha = connected.commands().evalsha(script.getSha1(), ScriptOutputType.MULTI, keys, args);
		}
		catch (RuntimeException ex) {
			done.accept(null, this.connection.translate(ex, connected));
			return;
		}
		evalsha.whenComplete((reply, error) -> {
			if (!this.stallClock.knowsLoop()) {
				// the first reply on a connection tells its event loop
				this.stallClock.learnLoop();
			}
			if (error == null) {
				done.accept(reply, null);
			}
			else if (Futures.unwrap(error) instanceof RedisNoScriptException) {
				if (pending != null && pending.answer.isDone()) {
					// its caller gave up, and Redis ran nothing: nothing to send, nor to undo
					return;
				}
				RedisFuture<List<?>> eval;
				try {
					eval = connected.commands()
						.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), ScriptOutputType.MULTI,
								keys, args);
				}
				catch (RuntimeException ex) {
					done.accept(null, this.connection.translate(ex, connected));
					return;
				}
				eval.whenComplete((evalReply, evalError) -> done.accept(evalReply,
						(evalError != null) ? this.connection.translate(Futures.unwrap(evalError), connected)
								: null));
			}
			else {
				done.accept(null, this.connection.translate(Futures.unwrap(error), connected));
			}
		});
	}

	static byte[][] bytes(List<String> values) {
		byte[][] bytes = new byte[values.size()][];
		for (int i = 0; i < bytes.length; i++) {
			bytes[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return bytes;
	}

	/** What a command's reply comes to: the reply, or the failure translated. */
	@FunctionalInterface
	interface Reply {

		void accept(@Nullable List<?> reply, @Nullable RuntimeException failure);

	}

}
