package dev.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.ratelimit.Algorithm;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * What differs between the algorithms on Redis, in one table: each one's Lua script and the segment
 * that names it in keys. Scripts are read once from
 * {@code META-INF/ratelimit/scripts/<name>.lua}, each after the shared {@code prelude.lua}, and run
 * with {@code EVALSHA}.
 */
final class RedisScripts {

	/** Where the scripts lie on the class path. */
	static final String LOCATION = "META-INF/ratelimit/scripts/";

	/** Deletes a key's state under every limit. */
	static final RedisScript<List> RESET = RedisScript.of(read("reset"), List.class);

	private static final Map<Algorithm, RedisScripts> TABLE = new EnumMap<>(Algorithm.class);

	static {
		add(Algorithm.FIXED_WINDOW, "fixed-window", "fixed");
		add(Algorithm.SLIDING_WINDOW_LOG, "sliding-window-log", "sliding");
		add(Algorithm.SLIDING_WINDOW_COUNTER, "sliding-window-counter", "sliding-counter");
		add(Algorithm.TOKEN_BUCKET, "token-bucket", "token-bucket");
		add(Algorithm.GCRA, "gcra", "gcra");
	}

	private final RedisScript<List> script;

	private final String keySegment;

	private RedisScripts(RedisScript<List> script, String keySegment) {
		this.script = script;
		this.keySegment = keySegment;
	}

	private static void add(Algorithm algorithm, String file, String keySegment) {
		TABLE.put(algorithm, new RedisScripts(RedisScript.of(read("prelude") + read(file), List.class), keySegment));
	}

	static RedisScripts of(Algorithm algorithm) {
		return TABLE.get(algorithm);
	}

	RedisScript<List> script() {
		return this.script;
	}

	String keySegment() {
		return this.keySegment;
	}

	private static String read(String name) {
		String location = LOCATION + name + ".lua";
		try (InputStream in = RedisScripts.class.getClassLoader().getResourceAsStream(location)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + location + " is missing from the class path");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read Lua script " + location, ex);
		}
	}

}
