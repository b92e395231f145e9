package dev.ratelimit.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;

/**
 * Reloads the rules when Spring Cloud reports a change to a {@code ratelimit.*} property (a
 * {@code /actuator/refresh}, a Spring Cloud Config or Kubernetes config-map update); invalid new rules are
 * logged and the rules in force stay.
 */
final class RateLimitEnvironmentChangeListener implements ApplicationListener<EnvironmentChangeEvent> {

	private static final Log logger = LogFactory.getLog(RateLimitEnvironmentChangeListener.class);

	private final RateLimitRulesReload reload;

	RateLimitEnvironmentChangeListener(RateLimitRulesReload reload) {
		this.reload = reload;
	}

	@Override
	public void onApplicationEvent(EnvironmentChangeEvent event) {
		if (event.getKeys().stream().noneMatch((key) -> key.startsWith("ratelimit."))) {
			return;
		}
		try {
			this.reload.reload();
		}
		catch (RuntimeException ex) {
			logger.error("The changed rate-limit properties are invalid; the rules in force stay: " + ex.getMessage(),
					ex);
		}
	}

}
