package dev.ratelimit.autoconfigure;

import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.ratelimit.FailureMode;
import dev.ratelimit.redis.LettuceScriptRunner;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One warning at startup when Redis did not answer: where the application looked for it, the failure mode in force
 * and what that does to requests until Redis answers.
 */
final class RedisAtStartReport implements ApplicationListener<ContextRefreshedEvent> {

	private static final Log logger = LogFactory.getLog(RedisAtStartReport.class);

	private final ObjectProvider<LettuceScriptRunner> runner;

	private final LettuceConnectionFactory connectionFactory;

	private final FailureMode failureMode;

	private boolean reported;

	RedisAtStartReport(ObjectProvider<LettuceScriptRunner> runner, LettuceConnectionFactory connectionFactory,
			FailureMode failureMode) {
		this.runner = runner;
		this.connectionFactory = connectionFactory;
		this.failureMode = failureMode;
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		LettuceScriptRunner started = this.runner.getIfUnique();
		if (this.reported || started == null || !started.isRunning() || started.isReadyAtStart()) {
			return;
		}
		this.reported = true;
		logger.warn(message(where(this.connectionFactory), this.failureMode));
	}

	static String message(String where, FailureMode failureMode) {
		return "Redis did not answer at " + where + " while the application started: rate limits are not enforced"
				+ " across instances until it does. ratelimit.failure-mode=" + failureMode.id() + ": "
				+ switch (failureMode) {
					case FAIL_OPEN -> "requests pass unlimited";
					case FAIL_CLOSED -> "requests under a rule are refused with 503";
					case LOCAL -> "each instance enforces the limits in its own memory";
				} + ". Check spring.data.redis.* (host, port, url, password, ssl) and that Redis runs.";
	}

	/** Where the connection factory looks for Redis: host:port, the Sentinels or the cluster's nodes. */
	static String where(LettuceConnectionFactory factory) {
		RedisSentinelConfiguration sentinel = factory.getSentinelConfiguration();
		if (sentinel != null) {
			String master = (sentinel.getMaster() != null) ? sentinel.getMaster().getName() : "?";
			return "master '" + master + "' of the Sentinels "
					+ sentinel.getSentinels().stream().map(Object::toString).collect(Collectors.joining(", "));
		}
		RedisClusterConfiguration cluster = factory.getClusterConfiguration();
		if (cluster != null) {
			return "the cluster nodes "
					+ cluster.getClusterNodes().stream().map(Object::toString).collect(Collectors.joining(", "));
		}
		return factory.getHostName() + ":" + factory.getPort();
	}

}
