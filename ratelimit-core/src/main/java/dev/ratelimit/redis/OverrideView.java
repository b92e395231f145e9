package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitOverride;

import org.springframework.util.PatternMatchUtils;

/**
 * One instance's view of the overrides in Redis, as read at one time: what {@link RedisRateLimitOverrides#limits}
 * answers from between two reads. An override whose end comes before the next read stops applying at its end, by
 * this instance's monotonic clock set against the Redis server's at the read. Also the format of the overrides' hash
 * ({@code override.lua}).
 */
final class OverrideView {

	static final OverrideView EMPTY = new OverrideView(Map.of(), 0, 0, () -> 0);

	private final Map<String, RuleOverrides> rules;

	/** The Redis server's time at the read, in ms since the epoch, and this instance's monotonic clock then. */
	private final long readAtMillis;

	private final long readAtNanos;

	private final LongSupplier nanoTime;

	private OverrideView(Map<String, RuleOverrides> rules, long readAtMillis, long readAtNanos, LongSupplier nanoTime) {
		this.rules = rules;
		this.readAtMillis = readAtMillis;
		this.readAtNanos = readAtNanos;
		this.nanoTime = nanoTime;
	}

	/**
	 * Reads the reply of {@code overrides.lua}: the server's time, then field and value of each override.
	 */
	static OverrideView of(List<?> reply, long readAtNanos, LongSupplier nanoTime) {
		long now = ((Number) reply.get(0)).longValue();
		Map<String, List<RateLimitOverride>> byRule = new HashMap<>();
		for (int i = 1; i + 1 < reply.size(); i += 2) {
			RateLimitOverride override = parse(text(reply.get(i)), text(reply.get(i + 1)));
			if (override != null) {
				byRule.computeIfAbsent(override.rule(), (rule) -> new ArrayList<>()).add(override);
			}
		}
		Map<String, RuleOverrides> rules = new HashMap<>();
		byRule.forEach((rule, overrides) -> rules.put(rule, new RuleOverrides(overrides)));
		return new OverrideView(Map.copyOf(rules), now, readAtNanos, nanoTime);
	}

	/** The limits of a key under a rule: its own override's, else the most specific matching pattern's. */
	@Nullable List<RateLimit> limits(String rule, String key) {
		RuleOverrides overrides = this.rules.get(rule);
		if (overrides == null) {
			return null;
		}
		RateLimitOverride exact = overrides.exact.get(key);
		if (exact != null && live(exact)) {
			return exact.limits();
		}
		for (RateLimitOverride pattern : overrides.patterns) {
			if (PatternMatchUtils.simpleMatch(pattern.key(), key) && live(pattern)) {
				return pattern.limits();
			}
		}
		return null;
	}

	/** The overrides of a rule in force, sorted by key. */
	List<RateLimitOverride> list(String rule) {
		RuleOverrides overrides = this.rules.get(rule);
		if (overrides == null) {
			return List.of();
		}
		List<RateLimitOverride> all = new ArrayList<>(overrides.exact.values());
		all.addAll(overrides.patterns);
		return all.stream().filter(this::live).sorted(Comparator.comparing(RateLimitOverride::key)).toList();
	}

	private boolean live(RateLimitOverride override) {
		Instant end = override.expiresAt();
		if (end == null) {
			return true;
		}
		long leftNanos = (end.toEpochMilli() - this.readAtMillis) * 1_000_000L;
		return this.nanoTime.getAsLong() - (this.readAtNanos + leftNanos) < 0;
	}

	/** The field of an override in the hash: {@code <rule>\n<key>}. */
	static String field(String rule, String key) {
		return rule + '\n' + key;
	}

	/** The limits of an override in the hash: {@code <limit>/<window in ns>/<burst>}, comma-separated. */
	static String limits(List<RateLimit> limits) {
		StringBuilder text = new StringBuilder();
		for (RateLimit limit : limits) {
			if (!text.isEmpty()) {
				text.append(',');
			}
			text.append(limit.limit()).append('/').append(limit.window().toNanos()).append('/').append(limit.burst());
		}
		return text.toString();
	}

	/**
	 * Reads a field and its value, {@code <end in ms, 0 for never>\n<limits>}; {@code null} for one this version
	 * cannot read (written by another), which is left alone.
	 */
	static @Nullable RateLimitOverride parse(String field, String value) {
		int ruleEnd = field.indexOf('\n');
		int endsAt = value.indexOf('\n');
		if (ruleEnd < 0 || endsAt < 0) {
			return null;
		}
		try {
			long ends = Long.parseLong(value.substring(0, endsAt));
			List<RateLimit> limits = new ArrayList<>();
			for (String limit : value.substring(endsAt + 1).split(",")) {
				String[] parts = limit.split("/");
				limits.add(new RateLimit(Long.parseLong(parts[0]), Duration.ofNanos(Long.parseLong(parts[1])),
						Long.parseLong(parts[2])));
			}
			return new RateLimitOverride(field.substring(0, ruleEnd), field.substring(ruleEnd + 1), limits,
					(ends == 0) ? null : Instant.ofEpochMilli(ends));
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/** A bulk string of a script's reply: bytes from Lettuce, a string from other runners. */
	static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	/** A rule's overrides: of keys, by key; of patterns, the most specific first. */
	private static final class RuleOverrides {

		private final Map<String, RateLimitOverride> exact = new HashMap<>();

		private final List<RateLimitOverride> patterns;

		RuleOverrides(List<RateLimitOverride> overrides) {
			List<RateLimitOverride> patterns = new ArrayList<>();
			for (RateLimitOverride override : overrides) {
				if (override.isPattern()) {
					patterns.add(override);
				}
				else {
					this.exact.put(override.key(), override);
				}
			}
			patterns.sort(Comparator.comparingInt((RateLimitOverride override) -> -literalLength(override.key()))
				.thenComparing(RateLimitOverride::key));
			this.patterns = List.copyOf(patterns);
		}

		private static int literalLength(String pattern) {
			return pattern.length() - (int) pattern.chars().filter((c) -> c == '*').count();
		}

	}

}
