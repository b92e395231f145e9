package dev.ratelimit.autoconfigure.webmvc;

import dev.ratelimit.autoconfigure.RateLimitStack;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.autoconfigure.web.RateLimitInvocationRejectedProperties;
import dev.ratelimit.rules.flow.RateLimitContext;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.web.servlet.RateLimitInterceptor;
import dev.ratelimit.web.servlet.ServletRateLimitSupport;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.support.WebDataBinderFactory;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.method.support.ModelAndViewContainer;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.support.RouterFunctionMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Adds the {@link RateLimitInterceptor} to Spring MVC ahead of other interceptors, answers a
 * {@link RateLimitExceededException} a handler throws as a refused request, and Spring Framework's
 * {@code InvocationRejectedException} ({@code @ConcurrencyLimit}) as a throttled one (both after the application's own
 * {@code @ExceptionHandler}s, which may answer them otherwise), and checks every handler's
 * {@link dev.ratelimit.RateLimited} annotations once the application has started, so that a bad one stops it.
 */
public final class RateLimitWebMvcConfigurer implements WebMvcConfigurer, SmartInitializingSingleton {

	private final RateLimitInterceptor interceptor;

	private final RateLimitRuleRegistry rules;

	private final ListableBeanFactory beanFactory;

	private final ServletRateLimitSupport support;

	private final int invocationRejectedStatus;

	private final long invocationRejectedRetryAfter;

	RateLimitWebMvcConfigurer(RateLimitInterceptor interceptor, RateLimitRuleRegistry rules, ListableBeanFactory beanFactory,
			ServletRateLimitSupport support, int invocationRejectedStatus, long invocationRejectedRetryAfter) {
		this.interceptor = interceptor;
		this.rules = rules;
		this.beanFactory = beanFactory;
		this.support = support;
		this.invocationRejectedStatus = invocationRejectedStatus;
		this.invocationRejectedRetryAfter = invocationRejectedRetryAfter;
	}

	@Override
	public void addInterceptors(InterceptorRegistry registry) {
		registry.addInterceptor(this.interceptor).order(Ordered.HIGHEST_PRECEDENCE);
	}

	/** A handler's {@link RateLimitContext} argument: where its caller stands under the request's rules. */
	@Override
	public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
		resolvers.add(new HandlerMethodArgumentResolver() {

			@Override
			public boolean supportsParameter(MethodParameter parameter) {
				return parameter.getParameterType() == RateLimitContext.class;
			}

			@Override
			public Object resolveArgument(MethodParameter parameter, @Nullable ModelAndViewContainer container,
					NativeWebRequest request, @Nullable WebDataBinderFactory binders) {
				return RateLimitContext
					.from(request.getAttribute(RateLimitContext.ATTRIBUTE, RequestAttributes.SCOPE_REQUEST));
			}

		});
	}

	@Override
	public void extendHandlerExceptionResolvers(List<HandlerExceptionResolver> resolvers) {
		resolvers.add(this::refused);
	}

	private @Nullable ModelAndView refused(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		if (response.isCommitted()
				|| !(ex instanceof RateLimitExceededException || RateLimitInvocationRejectedProperties.rejected(ex))) {
			return null;
		}
		try {
			if (ex instanceof RateLimitExceededException refused) {
				this.support.refuse(request, response, refused);
			}
			else {
				this.support.throttle(request, response, this.invocationRejectedStatus, this.invocationRejectedRetryAfter);
			}
		}
		catch (IOException failure) {
			ex.addSuppressed(failure);
			return null;
		}
		return new ModelAndView();
	}

	@Override
	public void afterSingletonsInstantiated() {
		for (RequestMappingHandlerMapping mapping : this.beanFactory.getBeansOfType(RequestMappingHandlerMapping.class)
			.values()) {
			mapping.getHandlerMethods().values().forEach(this.rules::forHandler);
		}
		warnOfUnmappedRules();
	}

	/**
	 * Warns of the rules from properties whose paths no handler maps: request mappings (the application's and the
	 * actuator's), functional routes and gRPC methods.
	 */
	private void warnOfUnmappedRules() {
		Set<String> mapped = new LinkedHashSet<>();
		for (RouterFunctionMapping routes : this.beanFactory.getBeansOfType(RouterFunctionMapping.class).values()) {
			RouterFunction<?> function = routes.getRouterFunction();
			if (function != null) {
				mapped.addAll(ServletRateLimitSupport.routePatterns(function));
			}
		}
		for (RequestMappingInfoHandlerMapping mapping : this.beanFactory
			.getBeansOfType(RequestMappingInfoHandlerMapping.class)
			.values()) {
			mapping.getHandlerMethods().keySet().forEach((info) -> mapped.addAll(info.getPatternValues()));
		}
		// gRPC methods, which rules match by path too, as their technology tells
		mapped.addAll(RateLimitStack.otherMappedPaths(this.beanFactory.getBeanProvider(RateLimitStack.class)));
		this.rules.warnOfUnmappedRules(mapped);
	}

}
