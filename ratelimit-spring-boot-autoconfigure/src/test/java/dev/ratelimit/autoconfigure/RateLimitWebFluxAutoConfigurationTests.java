package dev.ratelimit.autoconfigure;

import dev.ratelimit.autoconfigure.webflux.RateLimitWebFluxAutoConfiguration;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.web.reactive.RateLimitHandlerWebFilter;
import dev.ratelimit.web.reactive.RateLimitWebFilter;
import dev.ratelimit.web.reactive.ReactiveRateLimitKeyResolver;
import dev.ratelimit.web.servlet.RateLimitKeyResolver;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.server.WebFilter;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitWebFluxAutoConfigurationTests {

	private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitWebAutoConfiguration.class, RateLimitWebFluxAutoConfiguration.class));

	@Test
	void registersBothWebFiltersWithTheConfiguredRules() {
		this.runner.withPropertyValues("ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=10",
				"ratelimit.rules.api.window=1m", "ratelimit.filter.order=-150")
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitWebFilter.class).hasSingleBean(RateLimitHandlerWebFilter.class);
				assertThat(context.getBean(RateLimitWebFilter.class).getOrder()).isEqualTo(-150);
				assertThat(context.getBean(RateLimitHandlerWebFilter.class).getOrder()).isGreaterThan(-100);
				assertThat(context.getBean(RateLimitRuleRegistry.class).pathRules()).hasSize(1);
			});
	}

	@Test
	void registersNothingWhenDisabled() {
		this.runner.withPropertyValues("ratelimit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitWebFilter.class));
	}

	@Test
	void backsOffInAServletApplication() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
					RateLimitWebAutoConfiguration.class, RateLimitWebFluxAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitWebFilter.class));
	}

	@Test
	void backsOffWithoutWebFluxOnTheClassPath() {
		this.runner.withClassLoader(new FilteredClassLoader(WebFilter.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitWebFilter.class));
	}

	@Test
	void letsTheApplicationsOwnFilterWin() {
		this.runner.withUserConfiguration(OwnFilterConfiguration.class)
			.run((context) -> assertThat(context).getBean(RateLimitWebFilter.class)
				.isSameAs(context.getBean("myFilter")));
	}

	@Test
	void resolvesABeanKeyToAReactiveResolver() {
		this.runner.withUserConfiguration(ReactiveResolverConfiguration.class)
			.withPropertyValues("ratelimit.rules.t.paths=/t", "ratelimit.rules.t.limit=1", "ratelimit.rules.t.window=1s",
					"ratelimit.rules.t.key=bean:tenantResolver")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void refusesToStartWithAServletResolverInAReactiveApplication() {
		this.runner.withUserConfiguration(ServletResolverConfiguration.class)
			.withPropertyValues("ratelimit.rules.t.paths=/t", "ratelimit.rules.t.limit=1", "ratelimit.rules.t.window=1s",
					"ratelimit.rules.t.key=bean:tenantResolver")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining(ReactiveRateLimitKeyResolver.class.getName()));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnFilterConfiguration {

		@Bean
		RateLimitWebFilter myFilter(dev.ratelimit.web.reactive.ReactiveRateLimitSupport support) {
			return new RateLimitWebFilter(support, 42);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ReactiveResolverConfiguration {

		@Bean
		ReactiveRateLimitKeyResolver tenantResolver() {
			return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Tenant"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ServletResolverConfiguration {

		@Bean
		RateLimitKeyResolver tenantResolver() {
			return (request) -> request.getHeader("X-Tenant");
		}

	}

}
