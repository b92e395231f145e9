package dev.ratelimit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a web handler method, or every handler method of a class, the same way a
 * {@code ratelimit.rules.<name>} rule does. Repeatable: every annotation applies, and a request passes
 * only if all allow it. A class-level limit is one budget shared by all the class's handlers.
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
	 * {@code principal} or {@code bean:<name>}.
	 * @return the key
	 */
	String key() default "ip";

	/**
	 * Permits one request takes, from 1 to the limit.
	 * @return the cost
	 */
	long cost() default 1;

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
