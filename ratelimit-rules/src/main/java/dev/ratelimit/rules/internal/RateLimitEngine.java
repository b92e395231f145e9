package dev.ratelimit.rules.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimitOverrides;
import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rules.CidrBlock;
import dev.ratelimit.rules.ForwardedHeader;
import dev.ratelimit.rules.HeaderVersion;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitObserver;
import dev.ratelimit.rules.flow.RateLimitPlanCache;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.context.SmartLifecycle;

/**
 * The rule engine, assembled by its {@link #builder builder} over public types only: the one way in for the
 * auto-configuration and the engine's own tests. Hands out its parts by their SPI types (the {@link RateLimitFlow}
 * entry points drive, the {@link RateLimitRuleRegistry} of the rules in force, the {@link RateLimitPlanCache}), and
 * makes the parts an application may replace one by one (the client-address resolver, the rejection handler, the
 * observers); every other type of this package is package-private.
 *
 * @since 0.1.0
 */
public final class RateLimitEngine implements AutoCloseable, SmartLifecycle {

	private final RateLimitRules rules;

	private final RateLimitPlans plans;

	private final RateLimitEnforcer enforcer;

	private final RateLimitFlow flow;

	private volatile boolean running;

	private RateLimitEngine(Builder builder) {
		this.rules = new RateLimitRules(builder.pathRules, builder.factory, builder.limiters,
				new AddressLists(builder.allow, builder.deny));
		this.plans = builder.plans;
		this.enforcer = new RateLimitEnforcer(this.rules, builder.failureMode, builder.localLimiter, builder.observer,
				this.plans, builder.overrides, builder.clock);
		this.flow = new EngineFlow(this.rules, this.enforcer, builder.addresses, new RateLimitHeaders(builder.headerVersion,
				builder.headersEnabled, builder.legacyHeaders, builder.partitionKeySecret));
	}

	/**
	 * Starts an engine whose annotated handlers and bean methods get their rules from a factory.
	 * @param factory builds the rules of {@link dev.ratelimit.RateLimited} annotations
	 * @return the builder
	 */
	public static Builder builder(RateLimitRuleFactory factory) {
		return new Builder(factory);
	}

	/**
	 * Returns what entry points drive: it picks the rules of a call, decides it under them and settles it.
	 * @return the flow
	 */
	public RateLimitFlow flow() {
		return this.flow;
	}

	/**
	 * Returns the rules in force, for entry points that pick their own, the auto-configuration, the actuator endpoint
	 * and the reload.
	 * @return the registry
	 */
	public RateLimitRuleRegistry rules() {
		return this.rules;
	}

	/**
	 * Returns the plans remembered for keys under rules whose plans a resolver bean names.
	 * @return the plans
	 */
	public RateLimitPlanCache plans() {
		return this.plans;
	}

	/**
	 * Stops renewing the leases of concurrency slots (those still held come back when their leases end) and gives
	 * back what rules with {@code prefetch} hold unspent.
	 */
	@Override
	public void close() {
		this.enforcer.close();
	}

	/** Marks the engine running, for {@link #stop()}. */
	@Override
	public void start() {
		this.running = true;
	}

	/**
	 * Gives back what rules with {@code prefetch} hold unspent when the application stops: after the web server stopped
	 * taking requests, while the Redis connection is still open (a bean's destruction comes after it is closed).
	 */
	@Override
	public void stop() {
		this.running = false;
		this.enforcer.givePrefetchedBack();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Returns the phase of the stop: after the web server's ({@code DEFAULT_PHASE - 2048}), before the Redis
	 * runner's ({@code DEFAULT_PHASE - 4096}).
	 * @return the phase
	 */
	@Override
	public int getPhase() {
		return SmartLifecycle.DEFAULT_PHASE - 3072;
	}

	/**
	 * Returns the client-address resolver of the engine: the peer's address, or, when that peer is a trusted proxy,
	 * the client its forwarding header names.
	 * @param trustedProxies the proxies whose forwarding header is believed
	 * @param header the forwarding header they set
	 * @param ipv6PrefixLength the length of the network an IPv6 client shares a budget with, 1 to 128
	 * @return the resolver
	 * @throws IllegalArgumentException when the prefix length is out of range
	 */
	public static ClientAddressResolver trustedProxies(List<CidrBlock> trustedProxies, ForwardedHeader header,
			int ipv6PrefixLength) {
		return new TrustedProxies(trustedProxies, header, ipv6PrefixLength);
	}

	/**
	 * Returns the default rejection handler: an RFC 9457 problem detail, in the representation the caller accepts.
	 * @return the handler
	 */
	public static RateLimitRejectionHandler problemDetails() {
		return new ProblemDetailRejectionHandler();
	}

	/**
	 * Returns an observer that makes each rule's decision an observation named {@code ratelimit.decision}, tagged with
	 * the rule and the outcome.
	 * @param registry where the observations go
	 * @return the observer
	 */
	public static RateLimitObserver observationObserver(ObservationRegistry registry) {
		return new ObservationRateLimitObserver(registry);
	}

	/**
	 * Builds a {@link RateLimitEngine}; every part but the rule factory has a default: no rule from properties, no
	 * limiter, no address list, {@code fail-open}, no observer, no plan resolver, the system's UTC clock, no trusted
	 * proxy, and the {@code RateLimit} headers of the IETF draft (version 12, with a fixed partition-key secret) only.
	 */
	public static final class Builder {

		private final RateLimitRuleFactory factory;

		private List<RateLimitRule> pathRules = List.of();

		private Map<Algorithm, ? extends RateLimiter> limiters = Map.of();

		private List<CidrBlock> allow = List.of();

		private List<CidrBlock> deny = List.of();

		private FailureMode failureMode = FailureMode.FAIL_OPEN;

		private @Nullable RateLimiter localLimiter;

		private RateLimitObserver observer = RateLimitObserver.NONE;

		private RateLimitPlans plans = RateLimitPlans.NONE;

		private RateLimitOverrides overrides = RateLimitOverrides.NONE;

		private Clock clock = Clock.systemUTC();

		private ClientAddressResolver addresses = new TrustedProxies(List.of(), ForwardedHeader.X_FORWARDED_FOR);

		private HeaderVersion headerVersion = HeaderVersion.DRAFT_12;

		private boolean headersEnabled = true;

		private boolean legacyHeaders;

		private @Nullable String partitionKeySecret;

		private Builder(RateLimitRuleFactory factory) {
			this.factory = factory;
		}

		/**
		 * Returns an observer that records decisions as Micrometer meters: the counter {@code ratelimit.decisions},
		 * tagged with the rule and the outcome, the timer {@code ratelimit.decision.duration}, and the counter
		 * {@code ratelimit.decisions.near-limit} at the default ratio, 0.8. Here rather than on
		 * {@link RateLimitEngine} so that the engine's class names no type of Micrometer's core, which an application
		 * may not have.
		 * @param registry where the meters go
		 * @return the observer
		 */
		public static RateLimitObserver micrometerObserver(MeterRegistry registry) {
			return new MicrometerRateLimitObserver(registry, MicrometerRateLimitObserver.DEFAULT_NEAR_LIMIT_RATIO);
		}

		/**
		 * Returns an observer as {@link #micrometerObserver(MeterRegistry)} does, that also counts in
		 * {@code ratelimit.decisions.near-limit}, tagged with the rule, the allowed decisions that left a limit of
		 * their rule at or below {@code 1 - nearLimitRatio} of it.
		 * @param registry where the meters go
		 * @param nearLimitRatio the share of a limit used at or past which a decision counts as near the limit
		 * ({@code 0.8}: 20 % of the limit left, or less); more than 0, at most 1
		 * @return the observer
		 * @throws IllegalArgumentException when the ratio is out of range
		 * @since 0.1.0
		 */
		public static RateLimitObserver micrometerObserver(MeterRegistry registry, double nearLimitRatio) {
			return new MicrometerRateLimitObserver(registry, nearLimitRatio);
		}

		/**
		 * Sets the rules from properties, which apply by path and method.
		 * @param pathRules the rules
		 * @return this builder
		 */
		public Builder pathRules(List<RateLimitRule> pathRules) {
			this.pathRules = List.copyOf(pathRules);
			return this;
		}

		/**
		 * Sets the limiter of each algorithm; a rule whose algorithm has none fails the build.
		 * @param limiters the limiters
		 * @return this builder
		 */
		public Builder limiters(Map<Algorithm, ? extends RateLimiter> limiters) {
			this.limiters = Map.copyOf(limiters);
			return this;
		}

		/**
		 * Sets the client addresses whose calls skip every rule and those refused before any.
		 * @param allow the blocks whose calls skip every rule
		 * @param deny the blocks whose calls are refused with 403; a denied address stays denied when also allowed
		 * @return this builder
		 */
		public Builder addressLists(List<CidrBlock> allow, List<CidrBlock> deny) {
			this.allow = List.copyOf(allow);
			this.deny = List.copyOf(deny);
			return this;
		}

		/**
		 * Sets what a call meets when a decision cannot be reached.
		 * @param failureMode the mode
		 * @param localLimiter the in-memory limiter of the {@code local} mode, {@code null} in the others
		 * @return this builder
		 */
		public Builder failureMode(FailureMode failureMode, @Nullable RateLimiter localLimiter) {
			this.failureMode = failureMode;
			this.localLimiter = localLimiter;
			return this;
		}

		/**
		 * Sets what learns of every decision, for metrics and traces.
		 * @param observer the observer ({@link RateLimitObserver#composite} for several)
		 * @return this builder
		 */
		public Builder observer(RateLimitObserver observer) {
			this.observer = observer;
			return this;
		}

		/**
		 * Sets the plan resolvers of the rules whose plans a resolver bean names, and how their answers are remembered.
		 * @param resolvers the resolver of a name
		 * @param ttl how long a key's plan is remembered, positive
		 * @param maxKeys how many keys' plans are remembered at most, at least 1
		 * @return this builder
		 * @throws IllegalArgumentException when {@code ttl} or {@code maxKeys} is out of range
		 */
		public Builder planResolvers(Function<String, RateLimitPlanResolver> resolvers, Duration ttl, int maxKeys) {
			this.plans = new RateLimitPlans(resolvers, ttl, maxKeys);
			return this;
		}

		/**
		 * Sets the limits given to keys at runtime, which replace a key's rule's (or plan's) limits in its decisions
		 * and headers; none by default.
		 * @param keyOverrides the overrides, asked on every decision: they answer from memory
		 * @return this builder
		 * @since 0.1.0
		 */
		public Builder overrides(RateLimitOverrides keyOverrides) {
			this.overrides = keyOverrides;
			return this;
		}

		/**
		 * Sets the clock that tells which period of a calendar quota a call falls in.
		 * @param clock the clock
		 * @return this builder
		 */
		public Builder clock(Clock clock) {
			this.clock = clock;
			return this;
		}

		/**
		 * Sets how client addresses are read and which proxies are trusted.
		 * @param addresses the resolver
		 * @return this builder
		 */
		public Builder addresses(ClientAddressResolver addresses) {
			this.addresses = addresses;
			return this;
		}

		/**
		 * Sets which rate-limit headers are written.
		 * @param enabled whether the {@code RateLimit} and {@code RateLimit-Policy} headers of the IETF draft are
		 * written
		 * @param legacy whether the {@code X-RateLimit-*} headers are written too
		 * @return this builder
		 */
		public Builder headers(boolean enabled, boolean legacy) {
			this.headersEnabled = enabled;
			this.legacyHeaders = legacy;
			return this;
		}

		/**
		 * Sets which version of the IETF draft the {@code RateLimit} and {@code RateLimit-Policy} headers follow.
		 * @param version the version
		 * @param partitionKeySecret the secret the {@code pk} of draft 12 is derived with, the same on every instance;
		 * {@code null} or empty for a fixed one, with which whoever guesses a key can confirm it
		 * @return this builder
		 */
		public Builder headerVersion(HeaderVersion version, @Nullable String partitionKeySecret) {
			this.headerVersion = version;
			this.partitionKeySecret = partitionKeySecret;
			return this;
		}

		/**
		 * Builds the engine, checking every rule from properties.
		 * @return the engine
		 * @throws InvalidRateLimitRuleException when two rules share a name or a rule's algorithm has no limiter
		 */
		public RateLimitEngine build() {
			return new RateLimitEngine(this);
		}

	}

}
