package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.FailureMode;
import dev.ratelimit.rules.CalendarPeriod;
import dev.ratelimit.rules.ForwardedHeader;
import dev.ratelimit.rules.HeaderVersion;
import dev.ratelimit.rules.MissingKey;
import dev.ratelimit.rules.RateLimitRule;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for rate limiting, the part every technology shares: the limiters and Redis, the rules,
 * the headers, client addresses and plans. Each technology's auto-configuration binds its own part beside it
 * ({@code ratelimit.clients.*}: {@link dev.ratelimit.autoconfigure.client.RateLimitClientProperties};
 * {@code ratelimit.filter.*}: {@link dev.ratelimit.autoconfigure.web.RateLimitFilterProperties}); a name under
 * {@code ratelimit.} that no part binds stops the application at startup.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties {

	/**
	 * Whether rate limiting is enabled; when false, no limiter, filter or interceptor is registered.
	 */
	private boolean enabled = true;

	/**
	 * Whether rules only observe: decisions are taken, counted and sent as headers, but nothing is
	 * refused; a rule's own shadow setting wins.
	 */
	private boolean shadow = false;

	/**
	 * First segment of every Redis key the limiters write.
	 */
	private String keyPrefix = "rate";

	/**
	 * Algorithm of the rules that name none.
	 */
	private Algorithm defaultAlgorithm = Algorithm.FIXED_WINDOW;

	/**
	 * What requests meet when no decision can be reached, for example while Redis is down.
	 */
	private FailureMode failureMode = FailureMode.FAIL_OPEN;

	/**
	 * Longest a decision waits on Redis, connecting included, before the failure mode applies.
	 */
	private Duration timeout = Duration.ofMillis(200);

	private final CircuitBreaker circuitBreaker = new CircuitBreaker();

	private final Batching batching = new Batching();

	private final Local local = new Local();

	private final LocalCache localCache = new LocalCache();

	private final Lettuce lettuce = new Lettuce();

	private final Metrics metrics = new Metrics();

	/**
	 * Proxies, as IP addresses or CIDR blocks, whose X-Forwarded-For and Forwarded headers are believed.
	 */
	private List<String> trustedProxies = new ArrayList<>();

	/**
	 * The header the trusted proxies write the client address in; the other one is never read.
	 */
	private ForwardedHeader forwardedHeader = ForwardedHeader.X_FORWARDED_FOR;

	/**
	 * Length of the prefix IPv6 client addresses share one budget under, 1 to 128; 128 gives each address its own.
	 */
	private int ipv6PrefixLength = 56;

	private final Headers headers = new Headers();

	private final Addresses allow = new Addresses();

	private final PlanCache planCache = new PlanCache();

	private final Addresses deny = new Addresses();

	private final Overrides overrides = new Overrides();

	/**
	 * Rules by name; each applies to the requests its paths and methods match.
	 */
	private Map<String, Rule> rules = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isShadow() {
		return this.shadow;
	}

	public void setShadow(boolean shadow) {
		this.shadow = shadow;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Algorithm getDefaultAlgorithm() {
		return this.defaultAlgorithm;
	}

	public void setDefaultAlgorithm(Algorithm defaultAlgorithm) {
		this.defaultAlgorithm = defaultAlgorithm;
	}

	public FailureMode getFailureMode() {
		return this.failureMode;
	}

	public void setFailureMode(FailureMode failureMode) {
		this.failureMode = failureMode;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	public CircuitBreaker getCircuitBreaker() {
		return this.circuitBreaker;
	}

	public Batching getBatching() {
		return this.batching;
	}

	public Local getLocal() {
		return this.local;
	}

	public Lettuce getLettuce() {
		return this.lettuce;
	}

	public LocalCache getLocalCache() {
		return this.localCache;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public List<String> getTrustedProxies() {
		return this.trustedProxies;
	}

	public void setTrustedProxies(List<String> trustedProxies) {
		this.trustedProxies = trustedProxies;
	}

	public int getIpv6PrefixLength() {
		return this.ipv6PrefixLength;
	}

	public void setIpv6PrefixLength(int ipv6PrefixLength) {
		this.ipv6PrefixLength = ipv6PrefixLength;
	}

	public ForwardedHeader getForwardedHeader() {
		return this.forwardedHeader;
	}

	public void setForwardedHeader(ForwardedHeader forwardedHeader) {
		this.forwardedHeader = forwardedHeader;
	}

	public Headers getHeaders() {
		return this.headers;
	}

	public PlanCache getPlanCache() {
		return this.planCache;
	}

	public Addresses getAllow() {
		return this.allow;
	}

	public Addresses getDeny() {
		return this.deny;
	}

	public Overrides getOverrides() {
		return this.overrides;
	}

	public Map<String, Rule> getRules() {
		return this.rules;
	}

	public void setRules(Map<String, Rule> rules) {
		this.rules = rules;
	}

	/**
	 * The circuit breaker that stops calls to a failing Redis.
	 */
	public static class CircuitBreaker {

		/**
		 * Failed decisions in a row after which Redis is no longer called for a while.
		 */
		private int failureThreshold = 5;

		/**
		 * How long Redis is not called after it failed, before one call probes it.
		 */
		private Duration openDuration = Duration.ofSeconds(2);

		public int getFailureThreshold() {
			return this.failureThreshold;
		}

		public void setFailureThreshold(int failureThreshold) {
			this.failureThreshold = failureThreshold;
		}

		public Duration getOpenDuration() {
			return this.openDuration;
		}

		public void setOpenDuration(Duration openDuration) {
			this.openDuration = openDuration;
		}

	}

	/**
	 * The in-memory limits of the local failure mode.
	 */
	public static class Local {

		/**
		 * Most keys held in memory per instance while Redis is unavailable; the least recently used go.
		 */
		private int maxKeys = 10_000;

		public int getMaxKeys() {
			return this.maxKeys;
		}

		public void setMaxKeys(int maxKeys) {
			this.maxKeys = maxKeys;
		}

	}

	/**
	 * Decisions that travel together to Redis.
	 */
	public static class Batching {

		/**
		 * Whether decisions made while two Redis calls are in flight wait for one to be answered and then go
		 * to Redis together, in one script call that decides each on its own (with Lettuce).
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * How the application's Lettuce client runs.
	 */
	public static class Lettuce {

		/**
		 * Whether the application's Lettuce connections, the starter's among them, run on the event loops of its
		 * Reactor Netty server (WebFlux, Spring Cloud Gateway) instead of Lettuce's own threads, so that Redis'
		 * replies arrive on a thread that serves requests. Nothing may then block on Redis on a server thread.
		 */
		private boolean sharedEventLoops;

		public boolean isSharedEventLoops() {
			return this.sharedEventLoops;
		}

		public void setSharedEventLoops(boolean sharedEventLoops) {
			this.sharedEventLoops = sharedEventLoops;
		}

	}

	/**
	 * The local denial cache: keys Redis refused are refused again without a Redis call until they could
	 * be granted.
	 */
	public static class LocalCache {

		/**
		 * Whether to refuse keys that Redis refused locally until their retry time, without a Redis call.
		 */
		private boolean enabled = true;

		/**
		 * Most refused keys remembered per instance.
		 */
		private int maxKeys = 10_000;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMaxKeys() {
			return this.maxKeys;
		}

		public void setMaxKeys(int maxKeys) {
			this.maxKeys = maxKeys;
		}

	}

	/**
	 * The rate-limit metrics.
	 */
	public static class Metrics {

		/**
		 * Share of a limit used at or past which an allowed decision counts in ratelimit.decisions.near-limit (0.8:
		 * 20 % of the limit left, or less); more than 0, at most 1.
		 */
		private double nearLimitRatio = 0.8;

		public double getNearLimitRatio() {
			return this.nearLimitRatio;
		}

		public void setNearLimitRatio(double nearLimitRatio) {
			this.nearLimitRatio = nearLimitRatio;
		}

	}

	/**
	 * Rate-limit response headers.
	 */
	public static class Headers {

		/**
		 * Whether to send the RateLimit-Policy and RateLimit headers on every limited response.
		 */
		private boolean enabled = true;

		/**
		 * Whether to also send X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset, of the tightest
		 * rule.
		 */
		private boolean legacy = false;

		/**
		 * Which version of the IETF RateLimit header draft to follow: draft-12 (with the partition key pk and the
		 * quota unit qu, limits of requests in flight announced), draft-9 (named policies without them) or draft-7
		 * (one combined RateLimit of the tightest limit).
		 */
		private HeaderVersion version = HeaderVersion.DRAFT_12;

		/**
		 * Secret the draft-12 partition key (pk) is derived with, the same on every instance; without it a fixed one
		 * is used, with which whoever guesses a key (a client address, a user id) can confirm the guess.
		 */
		private @Nullable String partitionKeySecret;

		public HeaderVersion getVersion() {
			return this.version;
		}

		public void setVersion(HeaderVersion version) {
			this.version = version;
		}

		public @Nullable String getPartitionKeySecret() {
			return this.partitionKeySecret;
		}

		public void setPartitionKeySecret(@Nullable String partitionKeySecret) {
			this.partitionKeySecret = partitionKeySecret;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isLegacy() {
			return this.legacy;
		}

		public void setLegacy(boolean legacy) {
			this.legacy = legacy;
		}

	}

	/**
	 * The limits of one plan of a rule: limit, window and burst, or several limits.
	 */
	public static class Plan {

		/**
		 * Permits per window.
		 */
		private @Nullable Long limit;

		/**
		 * Length of the window.
		 */
		private @Nullable Duration window;

		/**
		 * For token-bucket and gcra, how many permits may be taken at once; the limit when not set.
		 */
		private @Nullable Long burst;

		/**
		 * Several limits, all charged or none, instead of limit, window and burst.
		 */
		private List<Limit> limits = new ArrayList<>();

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getWindow() {
			return this.window;
		}

		public void setWindow(@Nullable Duration window) {
			this.window = window;
		}

		public @Nullable Long getBurst() {
			return this.burst;
		}

		public void setBurst(@Nullable Long burst) {
			this.burst = burst;
		}

		public List<Limit> getLimits() {
			return this.limits;
		}

		public void setLimits(List<Limit> limits) {
			this.limits = limits;
		}

	}

	/**
	 * The cache of the plans a RateLimitPlanResolver found, in each instance.
	 */
	public static class PlanCache {

		/**
		 * How long a key's plan is remembered before the resolver is asked again.
		 */
		private Duration ttl = Duration.ofMinutes(1);

		/**
		 * How many keys' plans are remembered at most.
		 */
		private int maxKeys = 10_000;

		public Duration getTtl() {
			return this.ttl;
		}

		public void setTtl(Duration ttl) {
			this.ttl = ttl;
		}

		public int getMaxKeys() {
			return this.maxKeys;
		}

		public void setMaxKeys(int maxKeys) {
			this.maxKeys = maxKeys;
		}

	}

	/**
	 * Client addresses, for the allow list (requests skip every rule, without a Redis call) and the deny
	 * list (requests are refused with 403 before any rule).
	 */
	public static class Addresses {

		/**
		 * IP addresses and CIDR blocks, such as 10.0.0.0/8 or 2001:db8::/32, matched against the client address (after trusted proxies).
		 */
		private List<String> addresses = new ArrayList<>();

		public List<String> getAddresses() {
			return this.addresses;
		}

		public void setAddresses(List<String> addresses) {
			this.addresses = addresses;
		}

	}

	/**
	 * How a request is charged, as rules and Spring Cloud Gateway routes both give it: its limits (limit, window and
	 * burst, the short form for a single limit, or several limits) and algorithm, its cost, the plans, the actual cost
	 * read after the work, the requests in flight, and the permits an instance takes at once.
	 */
	public static class Charge {

		/**
		 * Permits per window.
		 */
		private @Nullable Long limit;

		/**
		 * Length of the window.
		 */
		private @Nullable Duration window;

		/**
		 * For token-bucket and gcra, how many permits may be taken at once; the limit when not set.
		 */
		private @Nullable Long burst;

		/**
		 * Several limits, all charged or none, instead of limit, window and burst.
		 */
		private List<Limit> limits = new ArrayList<>();

		/**
		 * The algorithm; ratelimit.default-algorithm when not set.
		 */
		private @Nullable Algorithm algorithm;

		/**
		 * Permits one request takes.
		 */
		private long cost = 1;

		/**
		 * How a request's plan is found: bean:<name> (a RateLimitPlanResolver given the rule and the key) or, for a rule, header:<Name> (set by a trusted upstream).
		 */
		private @Nullable String plan;

		/**
		 * Limits per plan name; the rule's own limits are those of callers with no plan or an unknown one, and the plan 'unlimited' exempts a key.
		 */
		private Map<String, Plan> plans = new LinkedHashMap<>();

		/**
		 * Where the actual cost of a request is read once its response is ready, such as header:X-Tokens-Used: cost is then reserved before the handler and settled with the actual cost after it.
		 */
		private @Nullable String costFrom;

		/**
		 * Whether the cost-from header stays in the response the client gets; by default it is removed.
		 */
		private boolean costFromExpose = false;

		/**
		 * How many requests per key may be in flight at once, across every instance; alone or beside the rule's limits.
		 */
		private @Nullable Long concurrency;

		/**
		 * How long a request's slot is held without a renewal: renewed every half lease while it runs, it comes back by itself when an instance crashed; 1m when not set.
		 */
		private @Nullable Duration concurrencyLease;

		/**
		 * How many permits of a key each instance takes from Redis at once, to spend them without a Redis call per request (never more than the limits across every instance; an instance may refuse early while another holds up to this many); not set to decide every request in Redis.
		 */
		private @Nullable Long prefetch;

		/**
		 * How long a request or call the rule would refuse waits for a permit instead, such as 2s (the retry time Redis gives, then decided again); refused as before when the permit would come later. A servlet request's thread waits; WebFlux, the gateway and asynchronous methods hold no thread. Not set to refuse at once.
		 */
		private @Nullable Duration maxWait;

		/**
		 * How many requests may wait at once for the rule in one instance (max-wait); one more is refused at once. 100 when not set.
		 */
		private @Nullable Integer maxWaiting;

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getWindow() {
			return this.window;
		}

		public void setWindow(@Nullable Duration window) {
			this.window = window;
		}

		public @Nullable Long getBurst() {
			return this.burst;
		}

		public void setBurst(@Nullable Long burst) {
			this.burst = burst;
		}

		public List<Limit> getLimits() {
			return this.limits;
		}

		public void setLimits(List<Limit> limits) {
			this.limits = limits;
		}

		public @Nullable Algorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(@Nullable Algorithm algorithm) {
			this.algorithm = algorithm;
		}

		public long getCost() {
			return this.cost;
		}

		public void setCost(long cost) {
			this.cost = cost;
		}

		public @Nullable String getPlan() {
			return this.plan;
		}

		public void setPlan(@Nullable String plan) {
			this.plan = plan;
		}

		public Map<String, Plan> getPlans() {
			return this.plans;
		}

		public void setPlans(Map<String, Plan> plans) {
			this.plans = plans;
		}

		public @Nullable String getCostFrom() {
			return this.costFrom;
		}

		public void setCostFrom(@Nullable String costFrom) {
			this.costFrom = costFrom;
		}

		public boolean isCostFromExpose() {
			return this.costFromExpose;
		}

		public void setCostFromExpose(boolean costFromExpose) {
			this.costFromExpose = costFromExpose;
		}

		public @Nullable Long getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(@Nullable Long concurrency) {
			this.concurrency = concurrency;
		}

		public @Nullable Duration getConcurrencyLease() {
			return this.concurrencyLease;
		}

		public void setConcurrencyLease(@Nullable Duration concurrencyLease) {
			this.concurrencyLease = concurrencyLease;
		}

		public @Nullable Long getPrefetch() {
			return this.prefetch;
		}

		public void setPrefetch(@Nullable Long prefetch) {
			this.prefetch = prefetch;
		}

		public @Nullable Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(@Nullable Duration maxWait) {
			this.maxWait = maxWait;
		}

		public @Nullable Integer getMaxWaiting() {
			return this.maxWaiting;
		}

		public void setMaxWaiting(@Nullable Integer maxWaiting) {
			this.maxWaiting = maxWaiting;
		}

	}

	/**
	 * One named rule: how a request is charged, and which requests it applies to, whose budget they charge and how
	 * it refuses them.
	 */
	public static class Rule extends Charge {

		/**
		 * Spring path patterns the rule applies to, such as /api/**.
		 */
		private List<String> paths = new ArrayList<>();

		/**
		 * HTTP methods the rule applies to; all methods when empty.
		 */
		private List<String> methods = new ArrayList<>();

		/**
		 * Whose budget a request charges: ip, header:Name, param:name, principal or bean:name.
		 */
		private String key = "ip";

		/**
		 * What a request without the key's value meets: charged under its client address, refused with
		 * 400 (reject), or not limited by this rule (skip).
		 */
		private MissingKey missingKey = MissingKey.CLIENT_ADDRESS;

		/**
		 * Key values exempt from the rule, such as internal API keys: their requests skip it without a Redis call.
		 */
		private List<String> allowKeys = new ArrayList<>();

		/**
		 * Path patterns inside paths that the rule does not apply to, such as /api/health.
		 */
		private List<String> excludePaths = new ArrayList<>();

		/**
		 * Response statuses the rule charges, as codes, classes and ranges (401,403 or 4xx or 500-599): it then checks before the handler and charges after the response.
		 */
		private List<String> countStatuses = new ArrayList<>();

		/**
		 * A condition bean that decides per request whether the rule applies, as bean:<name>: a RateLimitCondition (servlet) or a ReactiveRateLimitCondition (WebFlux).
		 */
		private @Nullable String condition;

		/**
		 * How long a key the rule refuses stays refused, on every instance, from the refusal: an abuser is locked out for a while instead of being served again in the next window.
		 */
		private @Nullable Duration blockFor;

		/**
		 * How much longer each block that follows within block-for of the end of the previous one lasts (2 doubles it); 1 for blocks of one length.
		 */
		private @Nullable Double blockMultiplier;

		/**
		 * The longest a block lasts, however often a key offends again; when not set, block-for, or with a block-multiplier above 1 no bound short of 36500d.
		 */
		private @Nullable Duration blockMax;

		/**
		 * A calendar quota instead of a window: day, week or month, reset at local midnight, on Monday or on the first of the month.
		 */
		private @Nullable CalendarPeriod period;

		/**
		 * Time zone of the period's boundaries.
		 */
		private ZoneId zone = ZoneOffset.UTC;

		/**
		 * Whether the rule only observes, refusing nothing; ratelimit.shadow when not set.
		 */
		private @Nullable Boolean shadow;

		/**
		 * Whether the rule refuses requests over its limits; false makes it soft: decided, charged and announced in headers, never refused, and its decisions told to the handler (RateLimitContext).
		 */
		private boolean enforce = true;

		/**
		 * Whether each message a client sends on a streaming gRPC call the rule matches is charged (the call's start pays for its first, a refused message ends the call with RESOURCE_EXHAUSTED), rather than the call once; an HTTP request is one message.
		 */
		private boolean chargePerMessage = false;

		public List<String> getPaths() {
			return this.paths;
		}

		public void setPaths(List<String> paths) {
			this.paths = paths;
		}

		public List<String> getMethods() {
			return this.methods;
		}

		public void setMethods(List<String> methods) {
			this.methods = methods;
		}

		public String getKey() {
			return this.key;
		}

		public void setKey(String key) {
			this.key = key;
		}

		public MissingKey getMissingKey() {
			return this.missingKey;
		}

		public void setMissingKey(MissingKey missingKey) {
			this.missingKey = missingKey;
		}

		public List<String> getCountStatuses() {
			return this.countStatuses;
		}

		public void setCountStatuses(List<String> countStatuses) {
			this.countStatuses = countStatuses;
		}

		public List<String> getExcludePaths() {
			return this.excludePaths;
		}

		public void setExcludePaths(List<String> excludePaths) {
			this.excludePaths = excludePaths;
		}

		public @Nullable Duration getBlockFor() {
			return this.blockFor;
		}

		public void setBlockFor(@Nullable Duration blockFor) {
			this.blockFor = blockFor;
		}

		public @Nullable Double getBlockMultiplier() {
			return this.blockMultiplier;
		}

		public void setBlockMultiplier(@Nullable Double blockMultiplier) {
			this.blockMultiplier = blockMultiplier;
		}

		public @Nullable Duration getBlockMax() {
			return this.blockMax;
		}

		public void setBlockMax(@Nullable Duration blockMax) {
			this.blockMax = blockMax;
		}

		public @Nullable String getCondition() {
			return this.condition;
		}

		public void setCondition(@Nullable String condition) {
			this.condition = condition;
		}

		public @Nullable CalendarPeriod getPeriod() {
			return this.period;
		}

		public void setPeriod(@Nullable CalendarPeriod period) {
			this.period = period;
		}

		public ZoneId getZone() {
			return this.zone;
		}

		public void setZone(ZoneId zone) {
			this.zone = zone;
		}

		public List<String> getAllowKeys() {
			return this.allowKeys;
		}

		public void setAllowKeys(List<String> allowKeys) {
			this.allowKeys = allowKeys;
		}

		/**
		 * Hands the rule being built from these properties the options that need no check beyond their type, one
		 * line each; the options that need one (paths, limits, plans, blocks) go through the factory first.
		 * @param rule the builder of the rule
		 * @return the builder
		 */
		RateLimitRule.Builder applyTo(RateLimitRule.Builder rule) {
			rule.allowKeys(new LinkedHashSet<>(this.allowKeys)).enforce(this.enforce).chargePerMessage(this.chargePerMessage);
			Long prefetch = getPrefetch();
			return (prefetch != null) ? rule.prefetch(prefetch) : rule;
		}

		public @Nullable Boolean getShadow() {
			return this.shadow;
		}

		public void setShadow(@Nullable Boolean shadow) {
			this.shadow = shadow;
		}

		public boolean isEnforce() {
			return this.enforce;
		}

		public void setEnforce(boolean enforce) {
			this.enforce = enforce;
		}

		public boolean isChargePerMessage() {
			return this.chargePerMessage;
		}

		public void setChargePerMessage(boolean chargePerMessage) {
			this.chargePerMessage = chargePerMessage;
		}

	}

	/**
	 * One limit of a rule.
	 */
	public static class Limit {

		/**
		 * Permits per window.
		 */
		private @Nullable Long limit;

		/**
		 * Length of the window.
		 */
		private @Nullable Duration window;

		/**
		 * For token-bucket and gcra, how many permits may be taken at once; the limit when not set.
		 */
		private @Nullable Long burst;

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getWindow() {
			return this.window;
		}

		public void setWindow(@Nullable Duration window) {
			this.window = window;
		}

		public @Nullable Long getBurst() {
			return this.burst;
		}

		public void setBurst(@Nullable Long burst) {
			this.burst = burst;
		}

	}

	/**
	 * Per-key overrides of the rules' limits, set at runtime through the ratelimit endpoint and kept in Redis.
	 */
	public static class Overrides {

		/**
		 * Whether overrides set through the endpoint apply: each instance then reads them from Redis once per
		 * refresh interval.
		 */
		private boolean enabled = true;

		/**
		 * How often each instance reads the overrides from Redis: an override set or removed through another
		 * instance applies here within this interval.
		 */
		private Duration refreshInterval = Duration.ofSeconds(5);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			this.refreshInterval = refreshInterval;
		}

	}

}
