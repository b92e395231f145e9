package dev.ratelimit.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives the application of a {@code @SpringBootTest} what its rate limits need to be tested: a real Redis, found
 * or started as ratelimit's own tests find theirs (the URL in the environment variable
 * {@code RATELIMIT_TEST_REDIS_URL}; Testcontainers' {@code redis:7-alpine} when Testcontainers is on the class path
 * and a Docker engine answers; a {@code redis-server} on the {@code PATH}; the binary of
 * {@code com.github.codemonstur:embedded-redis}), started once per JVM on 127.0.0.1 and stopped when it exits, with
 * {@code spring.data.redis.url} pointed at it; every budget of the application reset before each test method (every
 * key under {@code ratelimit.key-prefix}, and the refusals the local denial cache remembers), so that one test's
 * {@code 429} never leaks into the next; and, with {@link #clock()}, a {@link RateLimitTestClock} the test moves.
 * <p>
 * Like Spring Boot's {@code @AutoConfigure...} annotations, it is added next to {@code @SpringBootTest}; the test
 * needs Spring's {@code SpringExtension}, which {@code @SpringBootTest} brings.
 *
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface AutoConfigureRateLimit {

	/**
	 * Whether the limiters read the time from a {@link RateLimitTestClock} bean the test moves, rather than from the
	 * Redis server's {@code TIME}: windows end and tokens come back when the test advances the clock, never while
	 * it waits.
	 * @return whether to register the test clock
	 */
	boolean clock() default false;

}
