package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.web.ClientAddressResolver;
import dev.ratelimit.web.RateLimitEnforcer;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.RateLimitRejectionHandler;
import dev.ratelimit.web.RateLimitRules;
import dev.ratelimit.web.servlet.RateLimitInterceptor;
import dev.ratelimit.web.servlet.RateLimitKeyResolver;
import dev.ratelimit.web.servlet.RateLimitResponseWriter;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.context.annotation.Bean;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Registers the {@link RateLimitInterceptor} in Spring MVC servlet applications: the servlet glue of
 * the shared {@link RateLimitRules}.
 */
@AutoConfiguration(after = RateLimitWebAutoConfiguration.class)
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnClass({ HandlerInterceptor.class, WebMvcConfigurer.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimitRules.class)
public final class RateLimitWebMvcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitInterceptor rateLimitInterceptor(RateLimitRules rules, RateLimitEnforcer enforcer,
			ClientAddressResolver addresses, RateLimitHeaders headers, RateLimitRejectionHandler rejections,
			ObjectProvider<RequestMappingHandlerAdapter> adapters, ListableBeanFactory beanFactory) {
		return new RateLimitInterceptor(rules, enforcer, addresses, beanFactory.getBeansOfType(RateLimitKeyResolver.class),
				headers, rejections, new RateLimitResponseWriter(() -> converters(adapters)));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebMvcConfigurer rateLimitWebMvcConfigurer(RateLimitInterceptor interceptor, RateLimitRules rules,
			ListableBeanFactory beanFactory) {
		return new RateLimitWebMvcConfigurer(interceptor, rules, beanFactory);
	}

	private static List<HttpMessageConverter<?>> converters(ObjectProvider<RequestMappingHandlerAdapter> adapters) {
		RequestMappingHandlerAdapter adapter = adapters.getIfUnique();
		if (adapter != null) {
			return adapter.getMessageConverters();
		}
		List<HttpMessageConverter<?>> defaults = new java.util.ArrayList<>();
		HttpMessageConverters.forServer().registerDefaults().build().forEach(defaults::add);
		return defaults;
	}

}
