package dev.ratelimit.rules.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.flow.LogThrottle;
import dev.ratelimit.rules.flow.RateLimitPlanCache;
import dev.ratelimit.RateLimitKeys;
import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.rules.PlanSource;
import dev.ratelimit.rules.RateLimitRule;

import org.springframework.util.Assert;

/**
 * Finds the plan of a key under a rule whose plans a {@link RateLimitPlanResolver} bean names, and
 * remembers it in this instance for a while, so that a resolver reading a database is not called per
 * request. A resolver that fails leaves the key on the rule's own limits (not remembered) and is logged
 * at most once a minute. Memory is bounded, in entries and in bytes: a long or unusual key is remembered
 * under its SHA-256 (as Redis keys are), and an answer that names no plan of the rule (nor {@code unlimited})
 * is remembered as no plan; past {@code maxKeys} entries, expired ones are dropped (at most once a second),
 * then, if still full, the oldest half of the look-ups is forgotten.
 *
 * @since 0.1.0
 */
final class RateLimitPlans implements RateLimitPlanCache {

	/** For rules without resolver beans: no look-up is ever made. */
	public static final RateLimitPlans NONE = new RateLimitPlans((name) -> {
		throw new IllegalStateException("no plan resolver named " + name);
	}, Duration.ofMinutes(1), 1);

	private static final Log logger = LogFactory.getLog(RateLimitPlans.class);

	private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;

	private final Function<String, RateLimitPlanResolver> resolvers;

	private final long ttlNanos;

	private final int maxKeys;

	private final LongSupplier nanoTime;

	private final Map<String, Entry> cache = new ConcurrentHashMap<>();

	private final AtomicLong nextSweep = new AtomicLong(Long.MIN_VALUE);

	private final LogThrottle failures = new LogThrottle();

	/**
	 * Creates the look-up on the system's monotonic clock.
	 * @param resolvers the plan resolver bean of a name
	 * @param ttl how long a key's plan is remembered, positive
	 * @param maxKeys how many keys' plans are remembered at most, at least 1
	 */
	public RateLimitPlans(Function<String, RateLimitPlanResolver> resolvers, Duration ttl, int maxKeys) {
		this(resolvers, ttl, maxKeys, System::nanoTime);
	}

	/**
	 * Creates the look-up on a given monotonic clock, for tests.
	 * @param resolvers the plan resolver bean of a name
	 * @param ttl how long a key's plan is remembered, positive
	 * @param maxKeys how many keys' plans are remembered at most, at least 1
	 * @param nanoTime the clock, in nanoseconds
	 */
	public RateLimitPlans(Function<String, RateLimitPlanResolver> resolvers, Duration ttl, int maxKeys,
			LongSupplier nanoTime) {
		Assert.isTrue(ttl != null && !ttl.isNegative() && !ttl.isZero(), () -> "ttl must be positive, but was " + ttl);
		Assert.isTrue(maxKeys >= 1, () -> "maxKeys must be at least 1, but was " + maxKeys);
		this.resolvers = resolvers;
		this.ttlNanos = ttl.toNanos();
		this.maxKeys = maxKeys;
		this.nanoTime = nanoTime;
	}

	/**
	 * Returns the plan of a key under a rule, remembered or asked of the rule's resolver.
	 * @param rule a rule whose plan is {@code bean:<name>}
	 * @param key the value the rule's key resolved to
	 * @return the plan's name, or {@code null} for the rule's own limits
	 */
	public @Nullable String plan(RateLimitRule rule, String key) {
		String cacheKey = cacheKey(rule, key);
		long now = this.nanoTime.getAsLong();
		Entry entry = this.cache.get(cacheKey);
		if (entry != null && now - entry.expires < 0) {
			return entry.plan.orElse(null);
		}
		if (!(rule.plan() instanceof PlanSource.Bean source)) {
			throw new IllegalArgumentException("rate-limit rule '" + rule.name() + "' finds no plan with a resolver bean");
		}
		String plan;
		try {
			plan = this.resolvers.apply(source.name()).resolvePlan(rule.name(), key);
		}
		catch (RuntimeException ex) {
			long others = this.failures.tryLog();
			if (others >= 0) {
				logger.warn("The plan resolver of rate-limit rule '" + rule.name() + "' (" + source.spelling() + ") failed"
						+ ((others > 0) ? " (and " + others + " more times in the last minute)" : "")
						+ "; the request was charged under the rule's own limits", ex);
			}
			return null;
		}
		// the rule's own limits for a name it does not configure: nothing else is worth its memory
		String known = (plan != null && (rule.plans().containsKey(plan) || RateLimitPlanResolver.UNLIMITED.equals(plan)))
				? plan : null;
		remember(cacheKey, known, now);
		return known;
	}

	private static String cacheKey(RateLimitRule rule, String key) {
		return rule.name() + '\u0000' + RateLimitKeys.segment(key);
	}

	/**
	 * Returns whether a key's plan under a rule is remembered, so that a reactive web stack can resolve it
	 * away from its event loop first.
	 * @param rule a rule whose plan is {@code bean:<name>}
	 * @param key the value the rule's key resolved to
	 * @return {@code true} when {@link #plan} answers from memory
	 */
	public boolean isRemembered(RateLimitRule rule, String key) {
		Entry entry = this.cache.get(cacheKey(rule, key));
		return entry != null && this.nanoTime.getAsLong() - entry.expires < 0;
	}

	/**
	 * Returns the plan of a key under a rule as this instance remembers it, without asking the resolver: for
	 * reading a key's state, which must not make the resolver look up keys the instance has never seen.
	 * @param rule a rule whose plan is {@code bean:<name>}
	 * @param key the value the rule's key resolved to
	 * @return the plan's name, or {@code null} when none is remembered (or the key has none)
	 */
	@Override
	public @Nullable String rememberedPlan(RateLimitRule rule, String key) {
		Entry entry = this.cache.get(cacheKey(rule, key));
		return (entry != null && this.nanoTime.getAsLong() - entry.expires < 0) ? entry.plan.orElse(null) : null;
	}

	/** The keys remembered, as remembered (for tests of their size). */
	java.util.Set<String> rememberedKeys() {
		return java.util.Set.copyOf(this.cache.keySet());
	}

	/**
	 * Forgets every remembered plan, for example after the plans changed.
	 */
	@Override
	public void clear() {
		this.cache.clear();
	}

	private void remember(String cacheKey, @Nullable String plan, long now) {
		if (this.cache.size() >= this.maxKeys) {
			long due = this.nextSweep.get();
			if ((due == Long.MIN_VALUE || now - due >= 0) && this.nextSweep.compareAndSet(due, now + SWEEP_INTERVAL_NANOS)) {
				this.cache.values().removeIf((entry) -> now - entry.expires >= 0);
				if (this.cache.size() >= this.maxKeys) {
					// still full of live entries: the oldest half goes, so that new keys are remembered too
					long median = this.cache.values().stream().mapToLong(Entry::expires).sorted()
						.skip(this.cache.size() / 2).findFirst().orElse(now);
					this.cache.values().removeIf((entry) -> entry.expires - median < 0);
				}
			}
			if (this.cache.size() >= this.maxKeys) {
				return;
			}
		}
		this.cache.put(cacheKey, new Entry(Optional.ofNullable(plan), now + this.ttlNanos));
	}

	private record Entry(Optional<String> plan, long expires) {
	}

}
