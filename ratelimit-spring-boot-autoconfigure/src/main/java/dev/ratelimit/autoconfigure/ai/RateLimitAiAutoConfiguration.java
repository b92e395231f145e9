package dev.ratelimit.autoconfigure.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimit;
import dev.ratelimit.ai.ChatKeyResolver;
import dev.ratelimit.ai.RateLimitAdvisor;
import dev.ratelimit.ai.TokenCount;
import dev.ratelimit.autoconfigure.PropertyRules;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.KeyResolvers;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.RuleKey;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientCustomizer;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * Limits the calls this application makes to chat models through Spring AI's {@code ChatClient}
 * ({@code ratelimit.ai.rules.*}): a {@link RateLimitAdvisor} over the rules, added to every {@code ChatClient} built
 * from Spring Boot's {@code ChatClient.Builder} (through Spring AI's {@link ChatClientCustomizer}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = RateLimitWebAutoConfiguration.class,
		beforeName = "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration")
@ConditionalOnClass({ ChatClient.class, RateLimitAdvisor.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(RateLimitFlow.class)
@EnableConfigurationProperties(RateLimitAiProperties.class)
public final class RateLimitAiAutoConfiguration {

	private static final String PREFIX = "ratelimit.ai.rules";

	@Bean
	@ConditionalOnMissingBean
	RateLimitAdvisor rateLimitAdvisor(RateLimitProperties properties, RateLimitAiProperties ai, RateLimitFlow flow,
			RateLimitRuleRegistry registry, RateLimitRuleFactory requestRules, ListableBeanFactory beans) {
		RateLimitRuleFactory factory = new RateLimitRuleFactory(properties.getDefaultAlgorithm(),
				new ChatKeyResolvers(beans), properties.isShadow(), requestRules.planResolvers());
		RateLimitAdvisor.Builder advisor = RateLimitAdvisor.builder(flow, registry)
			.keyResolvers((name) -> beans.getBean(name, ChatKeyResolver.class));
		if (ClassUtils.isPresent("org.springframework.security.core.context.SecurityContextHolder",
				RateLimitAiAutoConfiguration.class.getClassLoader())) {
			advisor.principal(SecurityPrincipal::name);
		}
		for (Map.Entry<String, RateLimitAiProperties.ChatRule> entry : ai.getAi().getRules().entrySet()) {
			add(advisor, factory, entry.getKey(), entry.getValue());
		}
		RateLimitAiProperties.ProviderLimits providerLimits = ai.getAi().getProviderLimits();
		if (providerLimits.isEnabled()) {
			advisor.providerLimits(maxHold(providerLimits.getMaxHold()));
		}
		return advisor.build();
	}

	@Bean
	ChatClientCustomizer rateLimitChatClientCustomizer(RateLimitAdvisor advisor) {
		return (builder) -> {
			if (!advisor.getRules().isEmpty() || advisor.holdsProviderLimits()) {
				builder.defaultAdvisors(advisor);
			}
		};
	}

	/**
	 * Adds the rule of {@code ratelimit.ai.rules.<name>}, each of its errors naming its property and the fix.
	 */
	private static void add(RateLimitAdvisor.Builder advisor, RateLimitRuleFactory factory, String name,
			RateLimitAiProperties.ChatRule rule) {
		String property = PREFIX + "." + name;
		checkNotGiven(property, rule);
		TokenCount tokens = tokens(property, rule.getTokens());
		RuleKey key = RuleKey.parse(rule.getKey().strip());
		if (key instanceof RuleKey.ClientAddress || key instanceof RuleKey.Header) {
			throw new InvalidConfigurationPropertyValueException(property + ".key", rule.getKey(),
					"a call to a chat model has no client address or headers of its own; use principal (the default), "
							+ "param:<name> (a value the caller puts in the advisor context), bean:<name> (a "
							+ "ChatKeyResolver) or a SpEL expression such as #context['tenant']");
		}
		if (tokens == TokenCount.REQUESTS && rule.getEstimate() != null) {
			throw new InvalidConfigurationPropertyValueException(property + ".estimate", rule.getEstimate(),
					"a rule that counts requests charges one permit per call; remove estimate, or count tokens");
		}
		RateLimitRule built = PropertyRules.forCalls(PREFIX, factory, name, asRule(rule));
		try {
			advisor.rule(built, tokens, rule.getEstimate());
		}
		catch (InvalidRateLimitRuleException ex) {
			throw PropertyRules.invalidProperty(PREFIX, ex);
		}
	}

	private static Duration maxHold(Duration maxHold) {
		if (maxHold.compareTo(RateLimit.MIN_WINDOW) < 0) {
			throw new InvalidConfigurationPropertyValueException("ratelimit.ai.provider-limits.max-hold", maxHold,
					"hold a model's calls for at least 1ms, such as 1h (the default); or set "
							+ "ratelimit.ai.provider-limits.enabled=false to learn nothing from the provider's answers");
		}
		// a hold never outlives what a limiter can block
		return (maxHold.compareTo(RateLimit.MAX_WINDOW) > 0) ? RateLimit.MAX_WINDOW : maxHold;
	}

	private static TokenCount tokens(String property, String text) {
		try {
			return TokenCount.valueOf(text.strip().toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property + ".tokens", text,
					"use total (the default: prompt and completion tokens), prompt, completion or requests");
		}
	}

	/**
	 * Fails on the options of a charge that mean nothing for a call to a model (it holds no slot, its cost is read
	 * from the model's usage); a request rule's matching options (paths, methods, statuses) are no property of a chat
	 * rule at all.
	 */
	private static void checkNotGiven(String property, RateLimitAiProperties.ChatRule rule) {
		List<String> given = new ArrayList<>();
		addIf(given, "cost", rule.getCost() != 1);
		addIf(given, "cost-from", rule.getCostFrom() != null || rule.isCostFromExpose());
		addIf(given, "concurrency", rule.getConcurrency() != null || rule.getConcurrencyLease() != null);
		addIf(given, "prefetch", rule.getPrefetch() != null);
		if (!given.isEmpty()) {
			throw new InvalidConfigurationPropertyValueException(property + "." + given.get(0), "set",
					"a call to a chat model holds no slot, and its cost is the tokens the provider reports (tokens, "
							+ "estimate); remove " + String.join(", ", given));
		}
	}

	/** The request rule's properties of a chat rule, whose options share their names, for the request rule's binding. */
	private static RateLimitProperties.Rule asRule(RateLimitAiProperties.ChatRule chatRule) {
		RateLimitProperties.Rule rule = new RateLimitProperties.Rule();
		BeanUtils.copyProperties(chatRule, rule);
		return rule;
	}

	private static void addIf(List<String> given, String option, boolean isGiven) {
		if (isGiven) {
			given.add(option);
		}
	}

	/** The beans a chat rule's {@code bean:<name>} key may name: the {@link ChatKeyResolver}s. */
	private record ChatKeyResolvers(ListableBeanFactory beans) implements KeyResolvers {

		@Override
		public boolean exists(String name) {
			return this.beans.containsBean(name) && this.beans.isTypeMatch(name, ChatKeyResolver.class);
		}

		@Override
		public String type() {
			return ChatKeyResolver.class.getName();
		}

	}

	/** The current principal's name in Spring Security's context; loaded only when Spring Security is present. */
	private static final class SecurityPrincipal {

		private SecurityPrincipal() {
		}

		static @Nullable String name() {
			var authentication = org.springframework.security.core.context.SecurityContextHolder.getContext()
				.getAuthentication();
			return (authentication != null && authentication.isAuthenticated()) ? authentication.getName() : null;
		}

	}

}
