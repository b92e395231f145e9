package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.redis.RedisRateLimiter;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * What a trial of {@link ScriptCost} sends: the script, the prefix of its keys, and with {@code group} above 1 the batch
 * script carrying that many calls of the script at {@code index} in it.
 */
record MeasuredScript(OurContender.SentScript script, String keyPrefix, int group, int index) {

	/** Encodes one EVALSHA carrying the calls of these keys. */
	byte[] evalsha(String sha, int[] keys) {
		if (this.group == 1) {
			return this.script.evalsha(sha, this.keyPrefix + "user-" + keys[0]);
		}
		List<String> args = this.script.args();
		List<String> parts = new ArrayList<>(6 + keys.length * 4 + args.size());
		parts.addAll(List.of("EVALSHA", sha, Integer.toString(keys.length)));
		for (int key : keys) {
			parts.add(this.keyPrefix + "user-" + key);
		}
		// as the runner sends them: calls with the same arguments share one list of them
		parts.add(Integer.toString(keys.length));
		for (int c = 0; c < keys.length; c++) {
			parts.addAll(List.of(Integer.toString(this.index), "1", "1"));
		}
		parts.addAll(List.of("1", Integer.toString(args.size())));
		parts.addAll(args);
		return RespConnection.encode(parts.toArray(new String[0]));
	}

	/** {@link ScriptCost#FLOOR}: the three commands of our fixed window, with nothing around them. */
	private static final String FLOOR_SCRIPT = """
			redis.call('HMGET', KEYS[1], 'n', 's')
			redis.call('PTTL', KEYS[1])
			redis.call('HINCRBY', KEYS[1], 'n', ARGV[2])
			return {1, 0, 0, 0}
			""";

	/** Returns what a trial of a script to measure sends. */
	static MeasuredScript of(ScriptCost.Spec spec) {
		String system = spec.algorithm();
		Path directory = spec.directory();
		if (system.equals(ScriptCost.SEED)) {
			// the seed's limiter sends its script with the window in seconds, under rate:fixed:<id>
			return new MeasuredScript(new OurContender.SentScript(Contenders.seedFixedWindowScript(),
					List.of(Long.toString(Contenders.ALLOWED.window().toSeconds()))), "rate:fixed:", 1, 0);
		}
		if (spec.group() > 1) {
			return batched(system, spec.group());
		}
		if (system.equals(ScriptCost.FLOOR)) {
			OurContender.SentScript fixed = OurContender.SentScript.capture("fixed-window", Contenders.ALLOWED);
			return new MeasuredScript(new OurContender.SentScript(FLOOR_SCRIPT, fixed.args()), "floor:", 1, 0);
		}
		OurContender.SentScript captured = OurContender.SentScript.capture(system, Contenders.ALLOWED);
		String script = (directory != null) ? read(directory.resolve("prelude.lua")) + read(directory.resolve(system + ".lua"))
				: captured.script();
		return new MeasuredScript(new OurContender.SentScript(script, captured.args()),
				keyPrefix(OurContender.limiter(system, (s, k, a) -> List.of()).build()), 1, 0);
	}

	/** What the limiter puts before an id in its Redis key. */
	private static String keyPrefix(RedisRateLimiter limiter) {
		String key = limiter.redisKey("user-0");
		return key.substring(0, key.length() - "user-0".length());
	}

	/**
	 * The batch script our runner sends under load, carrying {@code group} calls of one algorithm's
	 * script: read from the limiter's own package, as the runner finds them.
	 */
	private static MeasuredScript batched(String system, int group) {
		AtomicReference<RedisScript<?>> script = new AtomicReference<>();
		AtomicReference<List<String>> args = new AtomicReference<>();
		RedisRateLimiter limiter = OurContender.limiter(system, (s, k, a) -> {
			script.set(s);
			args.set(List.copyOf(a));
			return List.of(1L, 0L, 0L, 0L);
		}).build();
		limiter.tryAcquire("user-0", Contenders.within(system, Contenders.ALLOWED));
		try {
			Class<?> scripts = Class.forName("dev.ratelimit.redis.RedisScripts");
			Method index = scripts.getDeclaredMethod("batchIndex", RedisScript.class);
			index.setAccessible(true);
			Field batch = scripts.getDeclaredField("BATCH");
			batch.setAccessible(true);
			int scriptIndex = (int) index.invoke(null, script.get());
			if (scriptIndex == 0) {
				throw new IllegalStateException(system + "'s script is not among the batch script's");
			}
			return new MeasuredScript(new OurContender.SentScript(((RedisScript<?>) batch.get(null)).getScriptAsString(), args.get()),
					keyPrefix(limiter), group, scriptIndex);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Could not read the batch script from dev.ratelimit.redis.RedisScripts", ex);
		}
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
