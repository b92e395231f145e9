package dev.ratelimit.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Import;

/**
 * The web stacks a behaviour is tested on, each a real server on a random port of 127.0.0.1 with the test
 * Redis: Spring MVC on Tomcat and WebFlux on Netty. A test runs one case on each through
 * {@code @EnumSource(WebStack.class)}, against the same {@link StackEndpoints}.
 */
public enum WebStack {

	/** Spring MVC on Tomcat: the rule filter and the interceptor. */
	SERVLET(WebApplicationType.SERVLET, ServletApplication.class),

	/** WebFlux on Reactor Netty: the two web filters. */
	WEBFLUX(WebApplicationType.REACTIVE, ReactiveApplication.class);

	/**
	 * The auto-configurations of Spring Security, which is on the test class path for the tests that need it: the
	 * stacks' applications run without them ({@code spring.autoconfigure.exclude}).
	 */
	public static final List<String> WITHOUT_SECURITY = List.of(
			"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration");

	private final WebApplicationType type;

	private final Class<?> application;

	WebStack(WebApplicationType type, Class<?> application) {
		this.type = type;
		this.application = application;
	}

	/**
	 * Starts an application of this stack with a key prefix of its own.
	 * @param properties the test's properties, on top of the test Redis and the loopback address
	 * @param sources more configuration of the test's own
	 * @return the running application; the caller closes it
	 */
	public StackApp start(Map<String, ?> properties, Class<?>... sources) {
		Map<String, Object> all = new LinkedHashMap<>();
		all.put("server.address", "127.0.0.1");
		all.put("server.port", "0");
		all.put("spring.data.redis.url", RedisTestServer.shared().url());
		all.put("ratelimit.key-prefix", name().toLowerCase() + "-" + UUID.randomUUID().toString().substring(0, 8));
		// functional tests: a slow moment on a loaded machine must not turn a decision into fail-open
		all.put("ratelimit.timeout", "5s");
		all.put("spring.autoconfigure.exclude", String.join(",", WITHOUT_SECURITY));
		// springdoc is on the test class path for RateLimitOpenApiOnEveryStackTests, which turns it on
		all.put("springdoc.api-docs.enabled", "false");
		all.putAll(properties);
		return new StackApp(this, new SpringApplicationBuilder(this.application).sources(sources)
			.web(this.type)
			.properties(all)
			.run());
	}

	// without Spring Security: see WITHOUT_SECURITY
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(StackEndpoints.class)
	static class ServletApplication {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(StackEndpoints.class)
	static class ReactiveApplication {

	}

}
