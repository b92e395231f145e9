package dev.ratelimit.autoconfigure.webflux;

import dev.ratelimit.web.reactive.ReactorNettyEventLoops;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.AllNestedConditions;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * With {@code ratelimit.lettuce.shared-event-loops=true}, runs the application's Lettuce connections, the
 * starter's among them, on the event loops of its Reactor Netty server (WebFlux, Spring Cloud Gateway) through
 * {@link ReactorNettyEventLoops}: Redis' replies arrive on a thread that serves requests instead of Lettuce's own,
 * and no other thread is woken to hand a decision back. Anywhere else the property stops startup, naming it.
 *
 * @since 0.1.0
 */
@AutoConfiguration(beforeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(name = { "io.lettuce.core.resource.ClientResources",
		"org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer" })
@ConditionalOnBooleanProperty(RateLimitLettuceEventLoopsAutoConfiguration.PROPERTY)
public final class RateLimitLettuceEventLoopsAutoConfiguration {

	static final String PROPERTY = "ratelimit.lettuce.shared-event-loops";

	@Configuration(proxyBeanMethods = false)
	@Conditional(OnReactorNettyServer.class)
	static class OnReactorNetty {

		/**
		 * Gives Lettuce the loops Spring Boot's Netty server runs on, its {@link ReactorResourceFactory}'s (Reactor
		 * Netty's global ones unless the application's factory says otherwise), asked for when Lettuce connects.
		 */
		@Bean
		ClientResourcesBuilderCustomizer rateLimitSharedEventLoops(ObjectProvider<ReactorResourceFactory> resourceFactory) {
			return (builder) -> builder.eventLoopGroupProvider(new ReactorNettyEventLoops(() -> {
				ReactorResourceFactory factory = resourceFactory.getIfUnique();
				if (factory == null) {
					throw new IllegalStateException(PROPERTY + "=true: no single ReactorResourceFactory bean gives the loops "
							+ "of the Reactor Netty server");
				}
				return factory.getLoopResources();
			}));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(NotOnReactorNettyServer.class)
	static class Elsewhere {

		Elsewhere(ApplicationContext context) {
			throw new InvalidConfigurationPropertyValueException(PROPERTY, "true",
					"It runs Lettuce on the event loops of a Reactor Netty server (WebFlux or Spring Cloud Gateway), and this "
							+ "application has none (" + context.getClass().getSimpleName()
							+ "). Remove the property, or leave it false.");
		}

	}

	/** A reactive web application with Reactor Netty's server and the starter's WebFlux module. */
	static final class OnReactorNettyServer extends AllNestedConditions {

		OnReactorNettyServer() {
			super(ConfigurationPhase.PARSE_CONFIGURATION);
		}

		@ConditionalOnWebApplication(type = Type.REACTIVE)
		static final class Reactive {

		}

		@ConditionalOnClass(name = { "reactor.netty.http.server.HttpServer",
				"org.springframework.http.client.ReactorResourceFactory", "dev.ratelimit.web.reactive.ReactorNettyEventLoops" })
		static final class ReactorNetty {

		}

	}

	/** Any other application. */
	static final class NotOnReactorNettyServer extends SpringBootCondition {

		private final OnReactorNettyServer server = new OnReactorNettyServer();

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ConditionOutcome outcome = this.server.getMatchOutcome(context, metadata);
			return new ConditionOutcome(!outcome.isMatch(), outcome.getConditionMessage());
		}

	}

}
