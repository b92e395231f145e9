package dev.ratelimit.benchmarks;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RFuture;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPooled;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.RateLimit;
import dev.ratelimit.redis.LettuceScriptRunner;
import dev.ratelimit.redis.RedisRateLimiter;
import dev.ratelimit.redis.RedisScriptRunner;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Builds the systems under test, each configured to the same limit, over one array of keys.
 */
public final class Contenders {

	/** Our algorithms, in the order of the tables. */
	public static final List<String> OURS = List.of("fixed-window", "sliding-window-log", "sliding-window-counter",
			"token-bucket", "gcra");

	/**
	 * What a system's name ends with for one of {@link #OURS} with {@code ratelimit.batching.enabled}:
	 * {@code fixed-window+batching}, say.
	 */
	public static final String BATCHING = "+batching";

	/** Our algorithms with batching (the starter's default), as the steady state compares them. */
	public static final List<String> OURS_BATCHING = OURS.stream().map((name) -> name + BATCHING).toList();

	/** The seed article's two limiters. */
	public static final List<String> SEED = List.of("seed-fixed-window", "seed-sliding-window-log");

	/** The peers users would pick instead. */
	public static final List<String> PEERS = List.of("bucket4j", "redisson");

	/** Our fixed-window script over Lettuce's blocking API with no limiter code around it: the client's own cost. */
	public static final String LETTUCE_EVALSHA = "lettuce-evalsha";

	/**
	 * The seed's fixed-window script ({@code INCR}, {@code EXPIRE} when it opens the window) over Lettuce's
	 * blocking API with no limiter code around it: the reference of the steady state's targets.
	 */
	public static final String LETTUCE_EVALSHA_SEED = "lettuce-evalsha-seed";

	/**
	 * Our fixed-window script over Lettuce's blocking API, the keys striped over {@link #STRIPES} connections of
	 * one client (each connection has its own event loop thread of the client's), with no limiter code around it:
	 * whether one connection and its loop are the ceiling.
	 */
	public static final String LETTUCE_EVALSHA_STRIPED = "lettuce-evalsha-x4";

	/**
	 * Our fixed-window script over Jedis, a pool of as many connections as calling threads, with no limiter code
	 * around it: the calling thread writes the command and reads the reply itself, with no event loop to wake and
	 * be woken by, but one command per write and per read on both sides.
	 */
	public static final String JEDIS_EVALSHA = "jedis-evalsha";

	/** How many connections {@link #LETTUCE_EVALSHA_STRIPED} spreads its keys over. */
	static final int STRIPES = 4;

	/** The limit every allowed-path benchmark uses: never reached. */
	public static final RateLimit ALLOWED = RateLimit.of(1_000_000, Duration.ofHours(1));

	private Contenders() {
	}

	/**
	 * Returns keys {@code user-0} to {@code user-(count-1)}.
	 * @param count how many
	 * @return the keys
	 */
	public static String[] keys(int count) {
		String[] keys = new String[count];
		for (int i = 0; i < count; i++) {
			keys[i] = "user-" + i;
		}
		return keys;
	}

	/**
	 * Creates a contender.
	 * @param name one of {@link #OURS}, {@link #SEED} or {@link #PEERS}
	 * @param redis the server
	 * @param keys the keys it decides for
	 * @param limit the limit, for all but Redisson and Bucket4j given in whole seconds
	 * @return the contender
	 */
	public static Contender create(String name, BenchmarkRedis redis, String[] keys, RateLimit limit) {
		if (OURS.contains(name)) {
			return ours(name, redis, keys, limit, new LocalDenialCache(10_000), null, false);
		}
		if (name.endsWith(BATCHING) && OURS.contains(name.substring(0, name.length() - BATCHING.length()))) {
			return ours(name.substring(0, name.length() - BATCHING.length()), redis, keys, limit,
					new LocalDenialCache(10_000), null, true);
		}
		return switch (name) {
			case "seed-fixed-window" -> seedFixedWindow(redis, keys, limit);
			case "seed-sliding-window-log" -> seedSlidingWindow(redis, keys, limit);
			case "bucket4j" -> bucket4j(redis, keys, limit);
			case "redisson" -> redisson(redis, keys, limit);
			case LETTUCE_EVALSHA -> lettuceEvalsha(redis, keys, limit);
			case LETTUCE_EVALSHA_SEED -> lettuceEvalshaSeed(redis, keys, limit);
			case LETTUCE_EVALSHA_STRIPED -> lettuceEvalshaStriped(redis, keys, limit);
			case JEDIS_EVALSHA -> jedisEvalsha(redis, keys, limit);
			default -> throw new IllegalArgumentException("Unknown system " + name);
		};
	}

	/**
	 * Creates one of our limiters as the starter configures it, batching on or off: a Lettuce runner with
	 * a 200ms timeout, a circuit breaker, no fallback, and the given denial cache.
	 * @param name the algorithm, one of {@link #OURS}
	 * @param redis the server
	 * @param keys the keys it decides for
	 * @param limit the limit
	 * @param denialCache the local denial cache, or {@code null} for none
	 * @param calls counts the scripts sent to Redis when not {@code null}
	 * @param batching whether calls made while a command is in flight travel together
	 * @return the contender
	 */
	public static OurContender ours(String name, BenchmarkRedis redis, String[] keys, RateLimit limit,
			@Nullable LocalDenialCache denialCache, @Nullable LongAdder calls, boolean batching) {
		LettuceConnectionFactory factory = connectionFactory(redis);
		LettuceScriptRunner lettuce = new LettuceScriptRunner(factory, Duration.ofMillis(200), batching);
		RedisScriptRunner runner = (calls != null) ? (script, k, args) -> {
			calls.increment();
			return lettuce.run(script, k, args);
		} : lettuce;
		RedisRateLimiter limiter = OurContender.limiter(name, runner)
			.keyPrefix("bench")
			.circuitBreaker(new CircuitBreaker("Redis", 5, Duration.ofSeconds(2)))
			.denialCache(denialCache)
			.build();
		return new OurContender(name, limiter, redis, keys, within(name, limit), () -> {
			lettuce.close();
			factory.destroy();
		});
	}

	/**
	 * Returns {@code limit}, or for the sliding window log no more than the largest limit it takes: at 10,000
	 * keys a run spends a few hundred permits per key, so that either is never reached.
	 */
	static RateLimit within(String algorithm, RateLimit limit) {
		return (algorithm.equals("sliding-window-log") && limit.limit() > Algorithm.MAX_SLIDING_WINDOW_LOG_LIMIT)
				? RateLimit.of(Algorithm.MAX_SLIDING_WINDOW_LOG_LIMIT, limit.window()) : limit;
	}

	static LettuceConnectionFactory connectionFactory(BenchmarkRedis redis) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static Contender seedFixedWindow(BenchmarkRedis redis, String[] keys, RateLimit limit) {
		LettuceConnectionFactory factory = connectionFactory(redis);
		var seed = new dev.ratelimit.benchmarks.seed.FixedWindowRateLimiter(new StringRedisTemplate(factory));
		int max = Math.toIntExact(limit.limit());
		int windowSeconds = Math.toIntExact(limit.window().toSeconds());
		return new SelfFilling(keys, (i) -> seed.isAllowed(keys[i], max, windowSeconds), factory::destroy);
	}

	private static Contender seedSlidingWindow(BenchmarkRedis redis, String[] keys, RateLimit limit) {
		LettuceConnectionFactory factory = connectionFactory(redis);
		var seed = new dev.ratelimit.benchmarks.seed.SlidingWindowRateLimiter(new StringRedisTemplate(factory));
		int max = Math.toIntExact(limit.limit());
		int windowMs = Math.toIntExact(limit.window().toMillis());
		return new SelfFilling(keys, (i) -> seed.isAllowed(keys[i], max, windowMs), factory::destroy);
	}

	private static Contender bucket4j(BenchmarkRedis redis, String[] keys, RateLimit limit) {
		RedisClient client = RedisClient.create(RedisURI.create(redis.url()));
		StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
		LettuceBasedProxyManager<byte[]> proxies = Bucket4jLettuce.casBasedBuilder(connection)
			.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
			.build();
		BucketConfiguration configuration = BucketConfiguration.builder()
			.addLimit((bandwidth) -> bandwidth.capacity(limit.burst()).refillGreedy(limit.limit(), limit.window()))
			.build();
		BucketProxy[] buckets = new BucketProxy[keys.length];
		for (int i = 0; i < keys.length; i++) {
			buckets[i] = proxies.builder()
				.build(("bucket4j:" + keys[i]).getBytes(StandardCharsets.UTF_8), () -> configuration);
		}
		return new SelfFilling(keys, (i) -> buckets[i].tryConsume(1), () -> {
			connection.close();
			client.shutdown();
		});
	}

	private static Contender redisson(BenchmarkRedis redis, String[] keys, RateLimit limit) {
		Config config = new Config();
		config.useSingleServer().setAddress(redis.url());
		RedissonClient client = Redisson.create(config);
		RRateLimiter[] limiters = new RRateLimiter[keys.length];
		List<RFuture<Boolean>> rates = new ArrayList<>(keys.length);
		for (int i = 0; i < keys.length; i++) {
			limiters[i] = client.getRateLimiter("redisson:" + keys[i]);
			rates.add(limiters[i].trySetRateAsync(RateType.OVERALL, limit.limit(), limit.window()));
		}
		rates.forEach((rate) -> rate.toCompletableFuture().join());
		return new SelfFilling(keys, (i) -> limiters[i].tryAcquire(), client::shutdown);
	}

	private static Contender lettuceEvalsha(BenchmarkRedis redis, String[] keys, RateLimit limit) {
		OurContender.SentScript sent = OurContender.SentScript.capture("fixed-window", limit);
		return plainLettuce(redis, keys, sent.script(), "lettuce:fixed:", bytes(sent.args()), ScriptOutputType.MULTI,
				Contenders::fixedWindowGranted);
	}

	private static Contender lettuceEvalshaSeed(BenchmarkRedis redis, String[] keys, RateLimit limit) {
		// the seed's limiter sends the window in seconds and grants while the count is within the limit
		byte[][] args = { Long.toString(limit.window().toSeconds()).getBytes(StandardCharsets.UTF_8) };
		long max = limit.limit();
		return plainLettuce(redis, keys, seedFixedWindowScript(), "lettuce-seed:fixed:", args, ScriptOutputType.INTEGER,
				(reply) -> reply != null && (Long) reply <= max);
	}

	/** A script over Lettuce's blocking API on a connection of its own, with no limiter code around it. */
	private static Contender plainLettuce(BenchmarkRedis redis, String[] keys, String script, String keyPrefix,
			byte[][] args, ScriptOutputType type, Predicate<@Nullable Object> granted) {
		String sha = loaded(redis, script);
		RedisClient client = RedisClient.create(RedisURI.create(redis.url()));
		StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
		RedisCommands<byte[], byte[]> commands = connection.sync();
		byte[][][] redisKeys = redisKeys(keys, keyPrefix);
		return new SelfFilling(keys, (i) -> granted.test(commands.evalsha(sha, type, redisKeys[i], args)), () -> {
			connection.close();
			client.shutdown();
		});
	}

	private static Contender lettuceEvalshaStriped(BenchmarkRedis redis, String[] keys, RateLimit limit) {
		OurContender.SentScript sent = OurContender.SentScript.capture("fixed-window", limit);
		byte[][] args = bytes(sent.args());
		String sha = loaded(redis, sent.script());
		RedisClient client = RedisClient.create(RedisURI.create(redis.url()));
		List<StatefulRedisConnection<byte[], byte[]>> connections = new ArrayList<>();
		List<RedisCommands<byte[], byte[]>> stripes = new ArrayList<>();
		for (int i = 0; i < STRIPES; i++) {
			StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
			connections.add(connection);
			stripes.add(connection.sync());
		}
		byte[][][] redisKeys = redisKeys(keys, "lettuce-x4:fixed:");
		return new SelfFilling(keys,
				(i) -> fixedWindowGranted(stripes.get(i % STRIPES).evalsha(sha, ScriptOutputType.MULTI, redisKeys[i], args)),
				() -> {
					connections.forEach(StatefulRedisConnection::close);
					client.shutdown();
				});
	}

	private static Contender jedisEvalsha(BenchmarkRedis redis, String[] keys, RateLimit limit) {
		OurContender.SentScript sent = OurContender.SentScript.capture("fixed-window", limit);
		List<byte[]> args = List.of(bytes(sent.args()));
		byte[] sha = loaded(redis, sent.script()).getBytes(StandardCharsets.US_ASCII);
		GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
		// one connection per calling thread (the steady state runs at most 64), none ever waited for
		pool.setMaxTotal(128);
		pool.setMaxIdle(128);
		pool.setJmxEnabled(false);
		JedisPooled jedis = new JedisPooled(pool, "127.0.0.1", redis.port());
		byte[][][] redisKeys = redisKeys(keys, "jedis:fixed:");
		List<List<byte[]>> keyLists = new ArrayList<>(keys.length);
		for (byte[][] key : redisKeys) {
			keyLists.add(List.of(key));
		}
		return new SelfFilling(keys, (i) -> fixedWindowGranted(jedis.evalsha(sha, keyLists.get(i), args)), jedis::close);
	}

	/** Whether a reply of our fixed-window script granted: its first element is 1. */
	private static boolean fixedWindowGranted(@Nullable Object reply) {
		return reply instanceof List<?> list && Long.valueOf(1L).equals(list.get(0));
	}

	private static String loaded(BenchmarkRedis redis, String script) {
		return new String((byte[]) redis.admin().call("SCRIPT", "LOAD", script), StandardCharsets.US_ASCII);
	}

	private static byte[][] bytes(List<String> values) {
		return values.stream().map((value) -> value.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
	}

	private static byte[][][] redisKeys(String[] keys, String prefix) {
		byte[][][] redisKeys = new byte[keys.length][][];
		for (int i = 0; i < keys.length; i++) {
			redisKeys[i] = new byte[][] { (prefix + keys[i]).getBytes(StandardCharsets.UTF_8) };
		}
		return redisKeys;
	}

	/**
	 * Returns the seed's fixed-window script, read from its class, which stays as the article wrote it.
	 * @return the Lua source
	 */
	static String seedFixedWindowScript() {
		try {
			Field field = dev.ratelimit.benchmarks.seed.FixedWindowRateLimiter.class.getDeclaredField("SCRIPT");
			field.setAccessible(true);
			return (String) field.get(null);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
