package dev.ratelimit.autoconfigure.ai;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.ratelimit.ai.ChatKeyResolver;
import dev.ratelimit.ai.RateLimitAdvisor;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.ResponseCost;
import dev.ratelimit.rules.RuleKey;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientCustomizer;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

/**
 * The token budgets of {@code ratelimit.ai.rules.*}: rules built from the request rule's options with what a chat rule
 * adds, listed with the others, on every {@code ChatClient} built from Boot's builder; each bad value a startup error
 * naming its property; nothing without Spring AI or without rules.
 */
class RateLimitAiAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitWebAutoConfiguration.class, RateLimitAiAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1");

	@Test
	void buildsEachRuleAndListsItWithTheOthers() {
		this.runner
			.withPropertyValues("ratelimit.ai.rules.daily.limit=100000", "ratelimit.ai.rules.daily.period=day",
					"ratelimit.ai.rules.hourly.limit=20", "ratelimit.ai.rules.hourly.window=1h",
					"ratelimit.ai.rules.hourly.tokens=requests", "ratelimit.ai.rules.hourly.key=#context['tenant']")
			.run((context) -> {
				List<RateLimitRule> rules = context.getBean(RateLimitAdvisor.class).getRules();
				assertThat(rules).extracting(RateLimitRule::name).containsExactly("daily", "hourly");
				RateLimitRule daily = rules.get(0);
				assertThat(daily.key()).isEqualTo(new RuleKey.Principal());
				assertThat(daily.period()).isNotNull();
				assertThat(daily.paths()).isEmpty();
				assertThat(daily.source()).isEqualTo("ratelimit.ai.rules.daily");
				assertThat(daily.costFrom())
					.isEqualTo(new ResponseCost.Result("#result.metadata.usage.totalTokens"));
				assertThat(rules.get(1).costFrom()).isNull();
				assertThat(rules.get(1).key()).isInstanceOf(RuleKey.Expression.class);
				assertThat(context.getBean(RateLimitRuleRegistry.class).all()).contains(daily);
			});
	}

	@Test
	void addsTheAdvisorToEveryChatClientBuiltFromBootsBuilder() {
		this.runner.withPropertyValues("ratelimit.ai.rules.daily.limit=100", "ratelimit.ai.rules.daily.window=1d")
			.run((context) -> {
				ChatClient.Builder builder = mock(ChatClient.Builder.class);
				context.getBean(ChatClientCustomizer.class).customize(builder);
				verify(builder).defaultAdvisors(new Advisor[] { context.getBean(RateLimitAdvisor.class) });
			});
	}

	@Test
	void aKeyResolverBeanKeysARule() {
		this.runner.withUserConfiguration(TenantKeys.class)
			.withPropertyValues("ratelimit.ai.rules.daily.limit=100", "ratelimit.ai.rules.daily.window=1d",
					"ratelimit.ai.rules.daily.key=bean:tenants")
			.run((context) -> assertThat(context.getBean(RateLimitAdvisor.class).getRules().get(0).key())
				.isEqualTo(new RuleKey.Bean("tenants")));
	}

	@Test
	void badValuesStopStartupNamingTheirProperty() {
		failsNaming("ratelimit.ai.rules.daily.tokens", "ratelimit.ai.rules.daily.tokens=words");
		failsNaming("ratelimit.ai.rules.daily.key", "ratelimit.ai.rules.daily.key=ip");
		failsNaming("ratelimit.ai.rules.daily.key", "ratelimit.ai.rules.daily.key=bean:missing");
		failsNaming("ratelimit.ai.rules.daily.cost-from", "ratelimit.ai.rules.daily.cost-from=header:X-Tokens");
		failsNaming("ratelimit.ai.rules.daily.estimate", "ratelimit.ai.rules.daily.estimate=0");
		failsNaming("ratelimit.ai.rules.daily.window", "ratelimit.ai.rules.daily.window=-1s");
	}

	@Test
	void optionsOfRequestsAloneAreUnknownProperties() {
		this.runner.withPropertyValues("ratelimit.ai.rules.daily.limit=100", "ratelimit.ai.rules.daily.window=1d",
				"ratelimit.ai.rules.daily.paths=/api/**")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.ai.rules.daily.paths"));
	}

	private void failsNaming(String property, String value) {
		this.runner.withPropertyValues("ratelimit.ai.rules.daily.limit=100", "ratelimit.ai.rules.daily.window=1d")
			.withPropertyValues(value)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining(property));
	}

	@Test
	void backsOffWithoutSpringAiOrWithoutTheModule() {
		this.runner.withClassLoader(new FilteredClassLoader(ChatClient.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RateLimitFlow.class)
				.doesNotHaveBean(RateLimitAdvisor.class));
		this.runner.withClassLoader(new FilteredClassLoader("dev.ratelimit.ai"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ChatClientCustomizer.class));
	}

	@Test
	void withoutRulesTheAdvisorHoldsTheProvidersLimitsOnEveryChatClient() {
		this.runner.run((context) -> {
			RateLimitAdvisor advisor = context.getBean(RateLimitAdvisor.class);
			assertThat(advisor.holdsProviderLimits()).isTrue();
			assertThat(context.getBean(RateLimitRuleRegistry.class).all()).extracting(RateLimitRule::name)
				.contains("ai-provider-limits");
			ChatClient.Builder builder = mock(ChatClient.Builder.class);
			context.getBean(ChatClientCustomizer.class).customize(builder);
			verify(builder).defaultAdvisors(new Advisor[] { advisor });
		});
	}

	@Test
	void aMaxHoldShorterThanAMillisecondStopsStartupNamingIt() {
		this.runner.withPropertyValues("ratelimit.ai.provider-limits.max-hold=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("ratelimit.ai.provider-limits.max-hold"));
	}

	@Test
	void withoutRulesOrProviderLimitsNoChatClientGetsTheAdvisor() {
		this.runner.withPropertyValues("ratelimit.ai.provider-limits.enabled=false").run((context) -> {
			assertThat(context.getBean(RateLimitAdvisor.class).holdsProviderLimits()).isFalse();
			ChatClient.Builder builder = mock(ChatClient.Builder.class);
			context.getBean(ChatClientCustomizer.class).customize(builder);
			org.mockito.Mockito.verifyNoInteractions(builder);
		});
	}

	@Test
	void anAdvisorOfTheApplicationsOwnReplacesIt() {
		this.runner.withUserConfiguration(OwnAdvisor.class)
			.withPropertyValues("ratelimit.ai.rules.daily.limit=100", "ratelimit.ai.rules.daily.window=1d")
			.run((context) -> assertThat(context).getBean(RateLimitAdvisor.class)
				.isSameAs(context.getBean("ownAdvisor")));
	}

	@Configuration(proxyBeanMethods = false)
	static class TenantKeys {

		@Bean
		ChatKeyResolver tenants() {
			return (request) -> "acme";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnAdvisor {

		@Bean
		RateLimitAdvisor ownAdvisor(RateLimitFlow flow, RateLimitRuleRegistry registry) {
			return RateLimitAdvisor.builder(flow, registry).build();
		}

	}

}
