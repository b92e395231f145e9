package dev.ratelimit.autoconfigure;

import dev.ratelimit.web.internal.RateLimitRules;
import dev.ratelimit.web.servlet.RateLimitInterceptor;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Adds the {@link RateLimitInterceptor} to Spring MVC ahead of other interceptors, and checks every
 * handler's {@link dev.ratelimit.RateLimited} annotations once the application has started, so that a
 * bad one stops it.
 */
final class RateLimitWebMvcConfigurer implements WebMvcConfigurer, SmartInitializingSingleton {

	private final RateLimitInterceptor interceptor;

	private final RateLimitRules rules;

	private final ListableBeanFactory beanFactory;

	RateLimitWebMvcConfigurer(RateLimitInterceptor interceptor, RateLimitRules rules, ListableBeanFactory beanFactory) {
		this.interceptor = interceptor;
		this.rules = rules;
		this.beanFactory = beanFactory;
	}

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(this.interceptor).order(Ordered.HIGHEST_PRECEDENCE);
	}

	@Override
	public void afterSingletonsInstantiated() {
		for (RequestMappingHandlerMapping mapping : this.beanFactory.getBeansOfType(RequestMappingHandlerMapping.class)
			.values()) {
			mapping.getHandlerMethods().values().forEach(this.rules::forHandler);
		}
	}

}
