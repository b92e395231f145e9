package dev.ratelimit.autoconfigure.client;

import dev.ratelimit.autoconfigure.PropertyRules;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import dev.ratelimit.RateLimit;
import dev.ratelimit.client.RateLimitClientHttpRequestInterceptor;
import dev.ratelimit.client.RateLimitExchangeFilterFunction;
import dev.ratelimit.client.PartnerBudgets;
import dev.ratelimit.client.PartnerCalls;
import dev.ratelimit.client.RateLimitClientInterceptor;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.LimitDefinition;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.client.GrpcChannelBuilderCustomizer;

/**
 * Limits the calls this application makes to partners ({@code ratelimit.clients.*}): each partner's budget, shared
 * by every instance and decided on the same flow as the requests it serves, taken by every {@code RestClient},
 * {@code WebClient} and HTTP interface client built from Spring Boot's builders (through their customizers), and by
 * every channel of Spring gRPC's channel factory (through a {@code GrpcChannelBuilderCustomizer}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitWebAutoConfiguration.class)
@ConditionalOnClass(RateLimitClientHttpRequestInterceptor.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimitFlow.class)
@EnableConfigurationProperties(RateLimitClientProperties.class)
public final class RateLimitClientAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PartnerBudgets rateLimitPartnerBudgets(RateLimitProperties properties, RateLimitClientProperties clients,
			RateLimitFlow flow, RateLimitRuleRegistry rules,
			ObjectProvider<PartnerMeters> meters, ObjectProvider<Clock> clock, RateLimitRuleFactory factory) {
		PartnerBudgets.Builder budgets = PartnerBudgets.builder(flow, rules, clock.getIfUnique(Clock::systemUTC));
		meters.ifAvailable((each) -> each.countIn(budgets));
		clients.getClients().forEach((name, client) -> add(budgets, factory, name, client));
		return budgets.build();
	}

	/**
	 * Adds a partner of {@code ratelimit.clients.<name>}, each of its errors naming its property and the fix.
	 */
	private static void add(PartnerBudgets.Builder budgets, RateLimitRuleFactory factory, String name,
			RateLimitClientProperties.Client client) {
		String property = "ratelimit.clients." + name;
		List<String> urls = client.getUrls();
		PartnerCalls calls = PartnerCalls.urls(urls)
			.withGrpcServices(client.getGrpcServices())
			.withGrpcChannels(client.getGrpcChannels());
		if (calls.isEmpty()) {
			throw new InvalidConfigurationPropertyValueException(property + ".urls", null,
					"give the URLs of the partner's calls it limits, such as https://api.partner.example/**, or its "
							+ "gRPC services (" + property + ".grpc-services=shop.Inventory) or channels ("
							+ property + ".grpc-channels)");
		}
		check(property + ".urls", urls, PartnerCalls::checkUrl);
		check(property + ".grpc-services", client.getGrpcServices(), PartnerCalls::checkGrpcService);
		check(property + ".grpc-channels", client.getGrpcChannels(), PartnerCalls::checkGrpcChannel);
		Duration maxWait = client.getMaxWait();
		if (maxWait.isNegative()) {
			throw new InvalidConfigurationPropertyValueException(property + ".max-wait", maxWait,
					"use 0 (the default) to fail at once when the budget is spent, or how long a call may wait");
		}
		Duration maxLearnedBlock = client.getMaxLearnedBlock();
		if (maxLearnedBlock.compareTo(Duration.ofMillis(1)) < 0) {
			throw new InvalidConfigurationPropertyValueException(property + ".max-learned-block", maxLearnedBlock,
					"use at least 1ms (1h by default), or learn-from-responses=false to learn nothing");
		}
		List<LimitDefinition> limits = PropertyRules.definitions(property, "",
				new PropertyRules.LimitValues(client.getLimit(), client.getWindow(), client.getBurst()),
				client.getLimits()
					.stream()
					.map((each) -> new PropertyRules.LimitValues(each.getLimit(), each.getWindow(), each.getBurst()))
					.toList());
		RateLimitRule rule;
		try {
			rule = factory.forAttachment(name, limits, client.getAlgorithm(), 1,
					property + " (calls to " + calls + ")");
		}
		catch (InvalidRateLimitRuleException ex) {
			String attribute = ex.getAttribute().equals("name") ? "" : "." + ex.getAttribute();
			throw new InvalidConfigurationPropertyValueException(property + attribute, ex.getValue(), ex.getReason());
		}
		try {
			budgets.add(name, calls, rule, maxWait, client.isLearnFromResponses(),
					(maxLearnedBlock.compareTo(RateLimit.MAX_WINDOW) > 0) ? RateLimit.MAX_WINDOW : maxLearnedBlock);
		}
		catch (InvalidRateLimitRuleException ex) {
			throw new InvalidConfigurationPropertyValueException(property, name, ex.getReason());
		}
	}

	private static void check(String property, List<String> values, Consumer<String> check) {
		for (int i = 0; i < values.size(); i++) {
			try {
				check.accept(values.get(i));
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidConfigurationPropertyValueException(property + "[" + i + "]", values.get(i),
						String.valueOf(ex.getMessage()));
			}
		}
	}

	/**
	 * Where the partner budgets count their waits and the partners' refusals; a bean of its own so that Micrometer,
	 * an optional dependency, is named only where it is present.
	 */
	@FunctionalInterface
	interface PartnerMeters {

		/**
		 * Has the budgets count in a registry.
		 * @param budgets the budgets being built
		 */
		void countIn(PartnerBudgets.Builder budgets);

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class MicrometerConfiguration {

		@Bean
		@ConditionalOnMissingBean
		PartnerMeters rateLimitClientMetrics(ObjectProvider<MeterRegistry> registry) {
			return (budgets) -> registry.ifUnique(budgets::meterRegistry);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RestClientCustomizer.class)
	static class RestClientConfiguration {

		@Bean
		RestClientCustomizer rateLimitRestClientCustomizer(PartnerBudgets budgets) {
			RateLimitClientHttpRequestInterceptor interceptor = new RateLimitClientHttpRequestInterceptor(budgets);
			return (builder) -> {
				if (!budgets.isEmpty()) {
					builder.requestInterceptor(interceptor);
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ GrpcChannelBuilderCustomizer.class, ClientInterceptor.class, StatusProto.class })
	static class GrpcClientConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitClientInterceptor rateLimitClientInterceptor(PartnerBudgets budgets) {
			return new RateLimitClientInterceptor(budgets);
		}

		// added last, so the outermost: a call takes its permit before the other interceptors run
		@Bean
		<B extends ManagedChannelBuilder<B>> GrpcChannelBuilderCustomizer<B> rateLimitGrpcChannelBuilderCustomizer(PartnerBudgets budgets,
				RateLimitClientInterceptor interceptor) {
			return (name, builder) -> {
				if (!budgets.isEmpty()) {
					builder.intercept(interceptor.forChannel(name));
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ WebClientCustomizer.class, RateLimitExchangeFilterFunction.class,
			org.springframework.web.reactive.function.client.ExchangeFilterFunction.class })
	static class WebClientConfiguration {

		@Bean
		WebClientCustomizer rateLimitWebClientCustomizer(PartnerBudgets budgets) {
			RateLimitExchangeFilterFunction filter = new RateLimitExchangeFilterFunction(budgets);
			return (builder) -> {
				if (!budgets.isEmpty()) {
					builder.filter(filter);
				}
			};
		}

	}

}
