package dev.ratelimit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a method, or every method of a class, the same way a {@code ratelimit.rules.<name>} rule does: a web
 * handler (applied by the web stack before the handler runs) or a method of any other Spring bean (applied
 * around the call, in web and non-web applications alike). Repeatable: every annotation applies, and a call
 * passes only if all allow it. A class-level limit is one budget shared by all the class's methods.
 * <p>
 * A bean method that a limit refuses throws {@link RateLimitExceededException}, unless {@link #fallbackMethod()}
 * names a method to call instead. Methods returning {@code CompletableFuture}, {@code CompletionStage},
 * {@code Mono} or {@code Flux} are decided without blocking; the refusal is then their error signal.
 *
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RateLimited.List.class)
public @interface RateLimited {

	/**
	 * Permits per window, at least 1; 0 when the limits are given by {@link #limits()}.
	 * @return the limit
	 */
	long limit() default 0;

	/**
	 * The window length, as in properties: {@code "30s"}, {@code "1m"}, {@code "500ms"} or ISO-8601
	 * ({@code "PT1H"}); empty when the limits are given by {@link #limits()}.
	 * @return the window
	 */
	String window() default "";

	/**
	 * For the token bucket and GCRA, how many permits may be taken at once; 0 for the limit.
	 * @return the burst
	 */
	long burst() default 0;

	/**
	 * Several limits charged all or nothing, for example 10 per second and 1000 per hour, instead of
	 * {@link #limit()} and {@link #window()}.
	 * @return the limits
	 */
	Limit[] limits() default {};

	/**
	 * The algorithm, as in properties ({@code "fixed-window"}, {@code "sliding-window-log"}); empty for
	 * {@code ratelimit.default-algorithm}.
	 * @return the algorithm, or empty
	 */
	String algorithm() default "";

	/**
	 * Whose budget is charged: {@code ip}, {@code header:<Name>}, {@code param:<name>},
	 * {@code principal} or {@code bean:<name>}; on a bean method also a SpEL expression over the method's
	 * arguments when it starts with {@code #} ({@code #userId}, {@code #order.customerId}, {@code #p0}). A bean
	 * method called outside a web request has no client address: {@code ip} then charges one budget that every
	 * such call shares.
	 * @return the key
	 */
	String key() default "ip";

	/**
	 * Permits one call takes, from 1 to the limit: a number, or on a bean method a SpEL expression over its
	 * arguments when it starts with {@code #} ({@code #request.tokens}); a call whose cost is 0 is not charged.
	 * @return the cost
	 */
	String cost() default "1";

	/**
	 * What a call that lacks its key does, as in properties: {@code client-address} (charge the client
	 * address), {@code reject} or {@code skip} (the rule does not apply); empty for {@code client-address}.
	 * @return the missing-key policy, or empty
	 */
	String missingKey() default "";

	/**
	 * Key values exempt from the limit (such as internal API keys): their calls skip it.
	 * @return the exempt values
	 */
	String[] allowKeys() default {};

	/**
	 * Whether the limit only observes (decided, counted, never refuses): {@code "true"} or {@code "false"};
	 * empty for {@code ratelimit.shadow}.
	 * @return whether the limit only observes, or empty
	 */
	String shadow() default "";

	/**
	 * How long a key the limit refuses stays refused, such as {@code "10m"}; empty for no block.
	 * @return the block, or empty
	 */
	String blockFor() default "";

	/**
	 * How much longer each block that follows within {@link #blockFor()} of the previous one lasts; 0 for 1
	 * (every block as long).
	 * @return the multiplier, or 0
	 */
	double blockMultiplier() default 0;

	/**
	 * The longest block, such as {@code "24h"}; empty for {@link #blockFor()} (or the longest window when
	 * blocks grow).
	 * @return the longest block, or empty
	 */
	String blockMax() default "";

	/**
	 * Makes the limit a calendar quota that resets at local midnight ({@code day}), on Monday ({@code week}) or
	 * on the first of the month ({@code month}); then give {@link #limit()} and no window. Empty for rolling
	 * windows.
	 * @return the period, or empty
	 */
	String period() default "";

	/**
	 * The time zone of a calendar quota's boundaries, such as {@code "Europe/Madrid"}; empty for UTC.
	 * @return the zone id, or empty
	 */
	String zone() default "";

	/**
	 * How a call's plan is found: {@code bean:<name>} (a {@link RateLimitPlanResolver} bean) or
	 * {@code header:<Name>} (believed only from trusted proxies); empty without plans.
	 * @return the plan source, or empty
	 */
	String plan() default "";

	/**
	 * The limits of each plan; a key whose plan has none here has the annotation's own limits.
	 * @return the plans
	 */
	Plan[] plans() default {};

	/**
	 * On a bean method, the name of a method of the same bean to call instead when a limit refuses the call: it
	 * takes the same parameters, optionally followed by the {@link RateLimitExceededException} (or a supertype),
	 * and returns what the limited method returns. Empty to throw the exception.
	 * @return the fallback method's name, or empty
	 */
	String fallbackMethod() default "";

	/**
	 * On a bean method, the actual cost of a call, known once it returned: a SpEL expression over its result
	 * ({@code #result.usage.totalTokens}) and arguments. {@link #cost()} is then reserved before the call and settled with
	 * the actual cost after it: the difference charged (past the limit if need be), or the excess given back. Empty when
	 * the cost is known before.
	 * @return the expression, or empty
	 */
	String costFrom() default "";

	/**
	 * Whether the limit refuses calls over it: {@code "true"} or {@code "false"}; empty for {@code "true"}. A soft
	 * limit ({@code "false"}) is decided, charged and announced, never refuses, and tells the handler where the
	 * caller stands ({@code dev.ratelimit.rules.flow.RateLimitContext}).
	 * @return whether the limit refuses, or empty
	 */
	String enforce() default "";

	/**
	 * How many calls per key may be in flight at once, across every instance, at least 1; 0 for no such limit. Alone
	 * (without {@link #limit()}) or beside the limits: a call holds a slot from its decision until it completes (its
	 * response, or its future or publisher), under a lease renewed while it runs.
	 * @return the calls in flight, or 0
	 */
	long concurrency() default 0;

	/**
	 * How long a call's slot is held without a renewal, such as {@code "5m"}; empty for a minute. The slots of an
	 * instance that crashed come back when their leases end.
	 * @return the lease, or empty
	 */
	String concurrencyLease() default "";

	/**
	 * How many permits of a key each instance takes from Redis at once, to spend them in its memory without a Redis
	 * call per request, from 1 to the smallest limit (or burst); 0 to decide every call in Redis. Never more calls
	 * than the limits let through across every instance: an instance may refuse early while another holds unspent
	 * permits, at most this many per instance. For keys that carry most of the traffic; not with the sliding window
	 * log, {@link #concurrency()}, {@link #costFrom()} or {@link #blockFor()}.
	 * @return the permits taken at once, or 0
	 * @since 0.1.0
	 */
	long prefetch() default 0;

	/**
	 * How long a call the limit would refuse waits for a permit instead, such as {@code 2s}: it waits for the retry
	 * time the limiter gives (exact, from Redis's answer) and is decided again, and is refused as before when the
	 * permit would come later than this. A blocking method's thread waits (prefer virtual threads); a method returning
	 * a {@code CompletableFuture}, a {@code Mono}, a {@code Flux} or a Kotlin {@code suspend} function holds no thread
	 * while it waits. Empty to refuse at once.
	 * @return the longest wait, or empty
	 * @since 0.1.0
	 */
	String maxWait() default "";

	/**
	 * How many calls may wait at once for this limit in one instance ({@link #maxWait()}); one more is refused at once.
	 * 0 for the default, 100.
	 * @return the bound, or 0
	 * @since 0.1.0
	 */
	int maxWaiting() default 0;

	/**
	 * The rule's name in headers and Redis keys; empty for the class's simple name (class level) or
	 * {@code <Class>.<method>} (method level).
	 * @return the name, or empty
	 */
	String name() default "";

	/**
	 * One limit of a rule with several.
	 */
	@Target({})
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@interface Limit {

		/**
		 * Permits per window, at least 1.
		 * @return the limit
		 */
		long limit();

		/**
		 * The window length, such as {@code "1s"} or {@code "1h"}.
		 * @return the window
		 */
		String window();

		/**
		 * For the token bucket and GCRA, how many permits may be taken at once; 0 for the limit.
		 * @return the burst
		 */
		long burst() default 0;

	}

	/**
	 * The limits of one plan of a rule with plans.
	 */
	@Target({})
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@interface Plan {

		/**
		 * The plan's name, as the plan resolver or header gives it.
		 * @return the name
		 */
		String name();

		/**
		 * Permits per window, at least 1; 0 when the limits are given by {@link #limits()}.
		 * @return the limit
		 */
		long limit() default 0;

		/**
		 * The window length, such as {@code "1m"}; empty only in a calendar quota, whose window is its period.
		 * @return the window, or empty
		 */
		String window() default "";

		/**
		 * For the token bucket and GCRA, how many permits may be taken at once; 0 for the limit.
		 * @return the burst
		 */
		long burst() default 0;

		/**
		 * Several limits for the plan, charged all or nothing, instead of {@link #limit()} and {@link #window()}.
		 * @return the limits
		 */
		Limit[] limits() default {};

	}

	/**
	 * Holds several {@link RateLimited} annotations on one element.
	 */
	@Target({ ElementType.METHOD, ElementType.TYPE })
	@Retention(RetentionPolicy.RUNTIME)
	@Documented
	@interface List {

		/**
		 * The annotations.
		 * @return the annotations
		 */
		RateLimited[] value();

	}

}
