package dev.ratelimit.redis;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimited;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Tells an ahead-of-time build what the limiters load at run time without a reference the compiler can see: their
 * Lua scripts, read from the class path, and the {@link RateLimited} annotations, whose attributes are read
 * reflectively from handler methods. Registered in {@code META-INF/spring/aot.factories}.
 *
 * @since 0.1.0
 */
public final class RateLimiterRuntimeHints implements RuntimeHintsRegistrar {

	/** Where the scripts are, one per algorithm plus the prelude they share. */
	static final String SCRIPTS = "META-INF/ratelimit/scripts/*.lua";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
		for (Class<?> annotation : new Class<?>[] { RateLimited.class, RateLimited.List.class,
				RateLimited.Limit.class, RateLimited.Plan.class }) {
			hints.reflection().registerType(annotation, MemberCategory.INVOKE_DECLARED_METHODS);
		}
	}

}
