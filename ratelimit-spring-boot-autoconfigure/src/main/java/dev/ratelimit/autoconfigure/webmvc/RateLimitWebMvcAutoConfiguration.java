package dev.ratelimit.autoconfigure.webmvc;

import dev.ratelimit.autoconfigure.RateLimitStack;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import java.util.ArrayList;
import java.util.List;

import jakarta.servlet.DispatcherType;

import dev.ratelimit.autoconfigure.web.RateLimitFilterProperties;
import dev.ratelimit.autoconfigure.web.RateLimitInvocationRejectedProperties;
import dev.ratelimit.method.RateLimitCurrentRequest;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.web.servlet.RateLimitCondition;
import dev.ratelimit.web.servlet.RateLimitFilter;
import dev.ratelimit.web.servlet.RateLimitInterceptor;
import dev.ratelimit.web.servlet.RateLimitKeyResolver;
import dev.ratelimit.web.servlet.ServletRateLimitSupport;

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
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Applies the shared {@link RateLimitRuleRegistry rules} in servlet applications: a {@link RateLimitFilter} ahead
 * of Spring Security for the rules from properties, and a {@link RateLimitInterceptor} in Spring MVC for
 * the rules of annotated handlers and those keyed by {@code principal}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitWebAutoConfiguration.class)
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnClass({ RateLimitFilter.class, HandlerInterceptor.class, WebMvcConfigurer.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimitRuleRegistry.class)
@EnableConfigurationProperties({ RateLimitFilterProperties.class, RateLimitInvocationRejectedProperties.class })
public final class RateLimitWebMvcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitServletStack")
	RateLimitStack rateLimitServletStack() {
		return RateLimitStack.web("servlet", RateLimitKeyResolver.class, RateLimitCondition.class);
	}

	@Bean
	@ConditionalOnMissingBean
	ServletRateLimitSupport rateLimitServletSupport(RateLimitFlow flow, ClientAddressResolver addresses,
			RateLimitRejectionHandler rejections,
			ObjectProvider<RequestMappingHandlerAdapter> adapters, ListableBeanFactory beanFactory) {
		return new ServletRateLimitSupport(flow, addresses,
				(name) -> beanFactory.getBean(name, RateLimitKeyResolver.class),
				(name) -> beanFactory.getBean(name, RateLimitCondition.class), rejections,
				SingletonSupplier.of(() -> converters(adapters)));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitInterceptor rateLimitInterceptor(ServletRateLimitSupport support) {
		return new RateLimitInterceptor(support);
	}

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitFilterRegistration")
	FilterRegistrationBean<RateLimitFilter> rateLimitFilterRegistration(ServletRateLimitSupport support,
			RateLimitFilterProperties properties, ListableBeanFactory beanFactory) {
		// gRPC hosted in the servlet container: its calls are the gRPC interceptors', which answer in gRPC
		boolean grpc = beanFactory.getBeanProvider(RateLimitStack.class)
			.stream()
			.anyMatch((stack) -> RateLimitStack.GRPC.equals(stack.name()));
		FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(new RateLimitFilter(support,
				grpc));
		registration.setOrder(properties.getOrder());
		// ASYNC: the dispatch that writes an asynchronous handler's result settles count-statuses before it commits
		registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
		return registration;
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitWebMvcConfigurer rateLimitWebMvcConfigurer(RateLimitInterceptor interceptor, RateLimitRuleRegistry rules,
			ListableBeanFactory beanFactory, ServletRateLimitSupport support,
			RateLimitInvocationRejectedProperties invocationRejected) {
		return new RateLimitWebMvcConfigurer(interceptor, rules, beanFactory, support, invocationRejected.answerStatus(),
				invocationRejected.retryAfterSeconds());
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitCurrentRequest rateLimitCurrentRequest(ServletRateLimitSupport support) {
		return support::currentRequest;
	}

	private static List<HttpMessageConverter<?>> converters(ObjectProvider<RequestMappingHandlerAdapter> adapters) {
		RequestMappingHandlerAdapter adapter = adapters.getIfUnique();
		if (adapter != null) {
			return adapter.getMessageConverters();
		}
		List<HttpMessageConverter<?>> defaults = new ArrayList<>();
		HttpMessageConverters.forServer().registerDefaults().build().forEach(defaults::add);
		return defaults;
	}

}
