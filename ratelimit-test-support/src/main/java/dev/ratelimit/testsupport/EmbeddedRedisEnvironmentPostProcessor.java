package dev.ratelimit.testsupport;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;


import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Gives the sample a Redis when none answers at the configured address: starts the redis-server
 * binary shipped in the embedded-redis artifact on a free port of 127.0.0.1, points
 * {@code spring.data.redis.*} at it, and stops it when the JVM exits (Ctrl-C included). Set
 * {@code sample.embedded-redis.enabled=false} to never start one. For the samples, which register it in
 * their {@code META-INF/spring.factories}; never for a production application.
 */
public final class EmbeddedRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

	private final Log logger;

	/**
	 * Creates the post-processor.
	 * @param logFactory Spring Boot's deferred logs
	 */
	public EmbeddedRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
		this.logger = logFactory.getLog(EmbeddedRedisEnvironmentPostProcessor.class);
	}

	@Override
	public int getOrder() {
		// after application.properties and the command line are loaded
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		RedisServerProcess server = startIfNoneAnswers(environment);
		if (server != null) {
			Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "sample-embedded-redis-stop"));
		}
	}

	/**
	 * Starts a redis-server and points the environment at it, unless a Redis answers at the configured
	 * address or {@code sample.embedded-redis.enabled} is {@code false}.
	 * @param environment the environment
	 * @return the server started, which the caller stops, or {@code null}
	 */
	public @Nullable RedisServerProcess startIfNoneAnswers(ConfigurableEnvironment environment) {
		if (!environment.getProperty("sample.embedded-redis.enabled", Boolean.class, true)) {
			return null;
		}
		String url = environment.getProperty("spring.data.redis.url");
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		if (StringUtils.hasText(url)) {
			URI uri = URI.create(url);
			host = uri.getHost();
			port = (uri.getPort() > 0) ? uri.getPort() : 6379;
		}
		if (RedisServerProcess.answers(host, port)) {
			return null;
		}
		Path binary = RedisBinary.find();
		RedisServerProcess server = RedisServerProcess.start(binary);
		environment.getPropertySources()
			.addFirst(new MapPropertySource("sampleEmbeddedRedis", Map.of("spring.data.redis.url", server.url())));
		this.logger.info("No Redis answered at " + host + ":" + port + "; started " + binary + " on "
				+ RedisServerProcess.HOST + ":" + server.port() + " for this run (it stops with the application)");
		return server;
	}

}
