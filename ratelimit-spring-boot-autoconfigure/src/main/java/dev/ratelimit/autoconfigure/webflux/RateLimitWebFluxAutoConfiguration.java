package dev.ratelimit.autoconfigure.webflux;

import dev.ratelimit.autoconfigure.RateLimitStack;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.autoconfigure.web.RateLimitFilterProperties;
import dev.ratelimit.autoconfigure.web.RateLimitInvocationRejectedProperties;
import dev.ratelimit.method.ReactiveRateLimitCurrentRequest;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.web.reactive.RateLimitExchangeContextFilter;
import dev.ratelimit.web.reactive.RateLimitHandlerWebFilter;
import dev.ratelimit.web.reactive.RateLimitWebFilter;
import dev.ratelimit.web.reactive.ReactiveRateLimitCondition;
import dev.ratelimit.web.reactive.ReactiveRateLimitKeyResolver;
import dev.ratelimit.web.reactive.ReactiveRateLimitSupport;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.function.server.support.RouterFunctionMapping;
import org.springframework.web.reactive.result.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.core.MethodParameter;
import org.springframework.web.reactive.BindingContext;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.result.method.HandlerMethodArgumentResolver;
import org.springframework.web.reactive.result.method.annotation.ArgumentResolverConfigurer;
import dev.ratelimit.rules.flow.RateLimitContext;

/**
 * Applies the shared {@link RateLimitRuleRegistry rules} in reactive (WebFlux) applications: a
 * {@link RateLimitWebFilter} ahead of Spring Security for the rules from properties, and a
 * {@link RateLimitHandlerWebFilter} behind it for the rules of annotated handlers and those keyed by
 * {@code principal}. Neither blocks a thread on Redis.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitWebAutoConfiguration.class,
		afterName = "org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration")
@ConditionalOnWebApplication(type = Type.REACTIVE)
@ConditionalOnClass({ RateLimitWebFilter.class, WebFilter.class, RequestMappingHandlerMapping.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimitRuleRegistry.class)
@EnableConfigurationProperties({ RateLimitFilterProperties.class, RateLimitInvocationRejectedProperties.class })
public final class RateLimitWebFluxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitReactiveStack")
	RateLimitStack rateLimitReactiveStack() {
		return RateLimitStack.web("reactive", ReactiveRateLimitKeyResolver.class, ReactiveRateLimitCondition.class);
	}

	@Bean
	@ConditionalOnMissingBean
	ReactiveRateLimitSupport rateLimitReactiveSupport(RateLimitFlow flow, ClientAddressResolver addresses,
			RateLimitRejectionHandler rejections,
			ObjectProvider<ServerCodecConfigurer> codecs, ObjectProvider<RequestMappingHandlerMapping> mappings,
			ListableBeanFactory beanFactory) {
		return new ReactiveRateLimitSupport(flow, addresses,
				(name) -> beanFactory.getBean(name, ReactiveRateLimitKeyResolver.class),
				(name) -> beanFactory.getBean(name, ReactiveRateLimitCondition.class), rejections,
				codecs.getIfAvailable(ServerCodecConfigurer::create).getWriters(), mappings.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebFilter rateLimitWebFilter(ReactiveRateLimitSupport support, RateLimitFilterProperties properties) {
		return new RateLimitWebFilter(support, properties.getOrder());
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitHandlerWebFilter rateLimitHandlerWebFilter(ReactiveRateLimitSupport support) {
		return new RateLimitHandlerWebFilter(support);
	}

	/**
	 * Answers a {@link RateLimitExceededException} a handler fails with (a limited bean method it called was
	 * refused) as a refused request, and Spring Framework's {@code InvocationRejectedException} ({@code @ConcurrencyLimit}
	 * refused a method it called) as a throttled one, before Spring Boot's error handler would answer them with 500;
	 * the application's own {@code @ExceptionHandler}s see them first.
	 */
	@Bean
	@ConditionalOnMissingBean(name = "rateLimitExceededWebExceptionHandler")
	@Order(-2)
	WebExceptionHandler rateLimitExceededWebExceptionHandler(ReactiveRateLimitSupport support,
			RateLimitInvocationRejectedProperties invocationRejected) {
		int status = invocationRejected.answerStatus();
		long retryAfter = invocationRejected.retryAfterSeconds();
		return (exchange, ex) -> {
			if (exchange.getResponse().isCommitted()) {
				return Mono.error(ex);
			}
			if (ex instanceof RateLimitExceededException refused) {
				return support.refuse(exchange, refused);
			}
			return RateLimitInvocationRejectedProperties.rejected(ex) ? support.throttle(exchange, status, retryAfter)
					: Mono.error(ex);
		};
	}

	/**
	 * A handler's {@link RateLimitContext} argument: where its caller stands under the exchange's rules.
	 * @return the configurer that adds its resolver
	 */
	@Bean
	@ConditionalOnMissingBean(name = "rateLimitContextArgumentConfigurer")
	WebFluxConfigurer rateLimitContextArgumentConfigurer() {
		return new WebFluxConfigurer() {

			@Override
			public void configureArgumentResolvers(ArgumentResolverConfigurer configurer) {
				configurer.addCustomResolver(new HandlerMethodArgumentResolver() {

					@Override
					public boolean supportsParameter(MethodParameter parameter) {
						return parameter.getParameterType() == RateLimitContext.class;
					}

					@Override
					public Mono<Object> resolveArgument(MethodParameter parameter, BindingContext bindingContext,
							ServerWebExchange exchange) {
						return Mono.just(RateLimitContext.from(exchange.getAttribute(RateLimitContext.ATTRIBUTE)));
					}

				});
			}

		};
	}

	@Bean
	@ConditionalOnMissingBean
	ReactiveRateLimitCurrentRequest rateLimitReactiveCurrentRequest(ReactiveRateLimitSupport support) {
		return support::currentRequest;
	}

	/**
	 * Puts each exchange in the Reactor context of its chain once a {@link dev.ratelimit.RateLimited} bean method reads
	 * requests, unless the application puts it there itself ({@link ServerWebExchangeContextFilter}).
	 */
	@Bean
	@ConditionalOnMissingBean({ ServerWebExchangeContextFilter.class, RateLimitExchangeContextFilter.class })
	RateLimitExchangeContextFilter rateLimitExchangeContextFilter(RateLimitRuleRegistry rules) {
		return new RateLimitExchangeContextFilter(rules);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebFluxHandlers rateLimitWebFluxHandlers(RateLimitRuleRegistry rules, ListableBeanFactory beanFactory) {
		return new RateLimitWebFluxHandlers(rules, beanFactory);
	}

	/**
	 * Checks every WebFlux handler's {@link dev.ratelimit.RateLimited} annotations once the application
	 * has started, so that a bad one stops it.
	 */
	static final class RateLimitWebFluxHandlers implements org.springframework.beans.factory.SmartInitializingSingleton {

		/** The handler mapping of Spring Cloud Gateway's routes. */
		private static final String GATEWAY_HANDLER_MAPPING = "org.springframework.cloud.gateway.handler.RoutePredicateHandlerMapping";

		private final RateLimitRuleRegistry rules;

		private final ListableBeanFactory beanFactory;

		RateLimitWebFluxHandlers(RateLimitRuleRegistry rules, ListableBeanFactory beanFactory) {
			this.rules = rules;
			this.beanFactory = beanFactory;
		}

		@Override
		public void afterSingletonsInstantiated() {
			List<RequestMappingHandlerMapping> mappings = List
				.copyOf(this.beanFactory.getBeansOfType(RequestMappingHandlerMapping.class).values());
			for (RequestMappingHandlerMapping mapping : mappings) {
				mapping.getHandlerMethods().values().forEach(this.rules::forHandler);
			}
			warnOfUnmappedRules();
		}

		/**
		 * Warns of the rules from properties whose paths no handler maps: request mappings (the application's and
		 * the actuator's), functional routes and gRPC methods.
		 */
		private void warnOfUnmappedRules() {
			for (HandlerMapping mapping : this.beanFactory.getBeansOfType(HandlerMapping.class).values()) {
				if (mapping.getClass().getName().startsWith(GATEWAY_HANDLER_MAPPING)) {
					// Spring Cloud Gateway's routes match by predicates that cannot be read: any path may be a route's
					return;
				}
			}
			Set<String> mapped = new LinkedHashSet<>();
			for (RouterFunctionMapping routes : this.beanFactory.getBeansOfType(RouterFunctionMapping.class).values()) {
				RouterFunction<?> function = routes.getRouterFunction();
				if (function != null) {
					mapped.addAll(ReactiveRateLimitSupport.routePatterns(function));
				}
			}
			for (RequestMappingInfoHandlerMapping mapping : this.beanFactory
				.getBeansOfType(RequestMappingInfoHandlerMapping.class)
				.values()) {
				mapping.getHandlerMethods()
					.keySet()
					.forEach((info) -> info.getPatternsCondition()
						.getPatterns()
						.forEach((pattern) -> mapped.add(pattern.getPatternString())));
			}
			// gRPC methods, which rules match by path too, as their technology tells
			mapped.addAll(RateLimitStack.otherMappedPaths(this.beanFactory.getBeanProvider(RateLimitStack.class)));
			this.rules.warnOfUnmappedRules(mapped);
		}

	}

}
