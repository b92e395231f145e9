package dev.ratelimit.autoconfigure.method;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.method.RateLimitCurrentRequest;
import dev.ratelimit.method.RateLimitedMethodPostProcessor;
import dev.ratelimit.method.ReactiveRateLimitCurrentRequest;
import dev.ratelimit.method.MethodRateLimitInterceptor;
import dev.ratelimit.rules.flow.RateLimitRequest;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;

/**
 * Applies {@link dev.ratelimit.RateLimited} to the methods of any Spring bean, in web and non-web applications: the
 * beans that have limited methods are proxied, and each call goes through the same {@link RateLimitFlow} as a web
 * request.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitWebAutoConfiguration.class)
@ConditionalOnClass(RateLimitedMethodPostProcessor.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimitRuleRegistry.class)
public final class RateLimitMethodAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static RateLimitedMethodPostProcessor rateLimitedMethodPostProcessor(ObjectProvider<RateLimitRuleRegistry> rules,
			ObjectProvider<RateLimitFlow> flow, ObjectProvider<RateLimitCurrentRequest> currentRequest,
			ObjectProvider<ReactiveRateLimitCurrentRequest> reactiveRequest, Environment environment,
			BeanFactory beanFactory) {
		MethodRateLimitInterceptor interceptor = new MethodRateLimitInterceptor(rules::getObject, flow::getObject,
				currentRequests(currentRequest), reactiveRequest::getIfUnique, () -> executor(beanFactory), beanFactory);
		// bound here, as the post-processor is created before the beans of configuration properties
		interceptor.setRetryMaxWait(Binder.get(environment)
			.bindOrCreate("ratelimit.retry", RateLimitRetryProperties.class)
			.checkedMaxWait());
		RateLimitedMethodPostProcessor postProcessor = new RateLimitedMethodPostProcessor(interceptor);
		// class-based proxies unless the application asks for interface-based ones, as Spring Boot's own do
		postProcessor.setProxyTargetClass(environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true));
		return postProcessor;
	}

	/**
	 * Finds the request a call is made in among those of each entry point that has one (a servlet request bound to
	 * the thread, a gRPC call in the thread's context): the first that has one.
	 */
	private static Supplier<@Nullable RateLimitCurrentRequest> currentRequests(
			ObjectProvider<RateLimitCurrentRequest> provider) {
		return SingletonSupplier.of(() -> {
			List<RateLimitCurrentRequest> all = provider.orderedStream().toList();
			if (all.size() < 2) {
				return all.isEmpty() ? null : all.get(0);
			}
			return () -> {
				for (RateLimitCurrentRequest each : all) {
					RateLimitRequest current = each.current();
					if (current != null) {
						return current;
					}
				}
				return null;
			};
		});
	}

	/**
	 * Where a limited method that returns a future goes on when its decision completes on Redis's I/O thread: the
	 * application's task executor, else the common pool.
	 */
	private static Executor executor(BeanFactory beanFactory) {
		String name = "applicationTaskExecutor";
		if (beanFactory.containsBean(name) && beanFactory.isTypeMatch(name, Executor.class)) {
			return beanFactory.getBean(name, Executor.class);
		}
		return ForkJoinPool.commonPool();
	}

}
