package dev.ratelimit.autoconfigure;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The common part of the properties, and the startup check of every part's names: imported by each
 * auto-configuration that reads the common part. A name under {@code ratelimit.} that no part binds stops the
 * application before any bean is created, whichever technologies are on the class path.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RateLimitProperties.class)
class RateLimitPropertiesConfiguration {

	@Bean
	static PropertyNamesCheck rateLimitPropertyNamesCheck(Environment environment) {
		return new PropertyNamesCheck(environment);
	}

	/**
	 * Binds every part of the properties once before the beans are created, failing on an unknown name.
	 */
	static final class PropertyNamesCheck implements BeanFactoryPostProcessor {

		private final Environment environment;

		PropertyNamesCheck(Environment environment) {
			this.environment = environment;
		}

		@Override
		public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
			PropertyParts.bind(Binder.get(this.environment));
		}

	}

}
