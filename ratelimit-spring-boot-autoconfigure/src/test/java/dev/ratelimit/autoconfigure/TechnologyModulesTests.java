package dev.ratelimit.autoconfigure;

import org.junit.jupiter.api.Test;

import dev.ratelimit.autoconfigure.client.RateLimitClientAutoConfiguration;
import dev.ratelimit.autoconfigure.method.RateLimitMethodAutoConfiguration;
import dev.ratelimit.autoconfigure.webflux.RateLimitWebFluxAutoConfiguration;
import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import dev.ratelimit.client.PartnerBudgets;
import dev.ratelimit.client.RateLimitClientHttpRequestInterceptor;
import dev.ratelimit.client.RateLimitClientInterceptor;
import dev.ratelimit.method.RateLimitedMethodPostProcessor;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.web.reactive.RateLimitWebFilter;
import dev.ratelimit.web.servlet.RateLimitInterceptor;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each technology's auto-configuration applies only where its runtime module is on the class path (the starter brings
 * them all; an application that depends on the auto-configuration module alone picks its own), and contributes what
 * the engine needs of its stack: without the web stack's module, the rules of properties have no calls to apply to.
 */
class TechnologyModulesTests {

	private static final AutoConfigurations ALL = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RateLimitAutoConfiguration.class, RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class,
			RateLimitWebFluxAutoConfiguration.class, RateLimitMethodAutoConfiguration.class,
			RateLimitClientAutoConfiguration.class);

	private static final String[] RULE = { "ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=5",
			"ratelimit.rules.api.window=1m" };

	@Test
	void theServletStackAppliesWithRatelimitWebmvcOnly() {
		WebApplicationContextRunner runner = new WebApplicationContextRunner().withConfiguration(ALL)
			.withPropertyValues(RULE);
		runner.run((context) -> {
			assertThat(context).hasSingleBean(RateLimitInterceptor.class).hasSingleBean(RateLimitStack.class);
			assertThat(context.getBean(RateLimitRuleRegistry.class).pathRules()).hasSize(1);
		});
		runner.withClassLoader(new FilteredClassLoader("dev.ratelimit.web.servlet")).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RateLimitFlow.class).doesNotHaveBean(RateLimitStack.class);
			assertThat(context.getBean(RateLimitRuleRegistry.class).pathRules()).isEmpty();
		});
	}

	@Test
	void theReactiveStackAppliesWithRatelimitWebfluxOnly() {
		ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner().withConfiguration(ALL)
			.withPropertyValues(RULE);
		runner.run((context) -> assertThat(context).hasSingleBean(RateLimitWebFilter.class)
			.getBean(RateLimitStack.class)
			.extracting(RateLimitStack::name)
			.isEqualTo("reactive"));
		runner.withClassLoader(new FilteredClassLoader("dev.ratelimit.web.reactive"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimitFlow.class)
				.doesNotHaveBean(RateLimitStack.class));
	}

	@Test
	void beanMethodsAndPartnerCallsApplyWithTheirModulesOnly() {
		WebApplicationContextRunner runner = new WebApplicationContextRunner().withConfiguration(ALL)
			.withPropertyValues("ratelimit.clients.maps.urls=https://maps.example/**", "ratelimit.clients.maps.limit=5",
					"ratelimit.clients.maps.window=1s");
		runner.run((context) -> assertThat(context).hasSingleBean(RateLimitedMethodPostProcessor.class)
			.hasBean("rateLimitPartnerBudgets"));
		runner.withClassLoader(new FilteredClassLoader("dev.ratelimit.method", "dev.ratelimit.client"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimitInterceptor.class)
				.doesNotHaveBean(RateLimitedMethodPostProcessor.class)
				.doesNotHaveBean("rateLimitPartnerBudgets"));
		assertThat(RateLimitClientHttpRequestInterceptor.class.getPackageName()).isEqualTo("dev.ratelimit.client");
	}

	@Test
	void grpcChannelsGetThePartnersInterceptorWithSpringGrpcsClientOnly() {
		WebApplicationContextRunner runner = new WebApplicationContextRunner().withConfiguration(ALL)
			.withPropertyValues("ratelimit.clients.inventory.grpc-services=shop.Inventory/Get*",
					"ratelimit.clients.inventory.limit=5", "ratelimit.clients.inventory.window=1s");
		runner.run((context) -> assertThat(context).hasSingleBean(RateLimitClientInterceptor.class)
			.hasBean("rateLimitGrpcChannelBuilderCustomizer"));
		runner.withClassLoader(new FilteredClassLoader("org.springframework.grpc.client"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean("rateLimitPartnerBudgets")
				.doesNotHaveBean(RateLimitClientInterceptor.class)
				.doesNotHaveBean("rateLimitGrpcChannelBuilderCustomizer"));
		// an interceptor of the application's own is the one added to the channels
		runner.withUserConfiguration(OwnInterceptor.class)
			.run((context) -> assertThat(context).hasSingleBean(RateLimitClientInterceptor.class)
				.hasBean("ownInterceptor")
				.hasBean("rateLimitGrpcChannelBuilderCustomizer"));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnInterceptor {

		@Bean
		RateLimitClientInterceptor ownInterceptor(PartnerBudgets budgets) {
			return new RateLimitClientInterceptor(budgets);
		}

	}

}
