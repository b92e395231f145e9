package dev.ratelimit.rules;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.BlockPolicy;
import dev.ratelimit.RateLimit;

import org.springframework.web.util.pattern.PathPattern;

/**
 * A rule in one line, for the startup log: its limits, algorithm, paths or where it is attached, key, cost,
 * blocks and shadow mode; and each of its policies in words, as an API's description tells its clients.
 */
final class RuleDescription {

	private RuleDescription() {
	}

	static String of(RateLimitRule rule) {
		CalendarPeriod period = rule.period();
		BlockPolicy block = rule.block();
		StringBuilder text = new StringBuilder("Rate limit '").append(rule.name()).append("': ");
		for (int i = 0; i < rule.limits().size(); i++) {
			RateLimit limit = rule.limits().get(i);
			text.append((i > 0) ? " and " : "").append(limit.limit()).append(" per ")
				.append((period != null) ? period.name().toLowerCase(Locale.ROOT) + " (" + rule.zone() + ")"
						: limit.windowLabel());
			if (limit.burst() != limit.limit()) {
				text.append(" (burst ").append(limit.burst()).append(')');
			}
		}
		RateLimit concurrency = rule.concurrency();
		if (concurrency != null) {
			text.append(rule.limits().isEmpty() ? "" : " and ").append(concurrency.limit())
				.append(" in flight (lease ").append(concurrency.windowLabel()).append(')');
		}
		if (!rule.limits().isEmpty()) {
			text.append(", ").append(rule.algorithm().id());
		}
		if (rule.prefetch() > 0) {
			text.append(", prefetch ").append(rule.prefetch());
		}
		text.append(", on ");
		if (rule.paths().isEmpty()) {
			text.append(rule.source());
		}
		else {
			text.append(rule.paths().stream().map(PathPattern::getPatternString).toList())
				.append(rule.methods().isEmpty() ? " (all methods)" : " " + rule.methods().stream().sorted().toList());
		}
		if (!rule.excludePaths().isEmpty()) {
			text.append(" except ").append(rule.excludePaths().stream().map(PathPattern::getPatternString).toList());
		}
		text.append(", key ").append(rule.key().spelling());
		if (rule.missingKey() != MissingKey.CLIENT_ADDRESS) {
			text.append(" (missing: ").append(rule.missingKey().name().toLowerCase(Locale.ROOT).replace('_', '-'))
				.append(')');
		}
		if (!rule.allowKeys().isEmpty()) {
			text.append(", ").append(rule.allowKeys().size()).append(" keys exempt");
		}
		text.append(", cost ").append(rule.cost());
		if (rule.chargePerMessage()) {
			text.append(" per message of a streaming gRPC call");
		}
		ResponseCost costFrom = rule.costFrom();
		if (costFrom instanceof ResponseCost.Header header) {
			text.append(" reserved, settled from header ").append(header.name())
				.append(header.expose() ? " (exposed)" : " (hidden)");
		}
		else if (costFrom instanceof ResponseCost.Result result) {
			text.append(" reserved, settled from ").append(result.expression());
		}
		PlanSource plan = rule.plan();
		if (plan != null) {
			text.append(", plans ");
			rule.plans().forEach((name, limits) -> text.append(name).append('=').append(limits.stream()
				.map((limit) -> limit.limit() + "/" + limit.windowLabel())
				.toList()).append(' '));
			text.append("from ").append((plan instanceof PlanSource.Header header) ? "header " + header.name()
					: "bean " + ((PlanSource.Bean) plan).name());
		}
		if (rule.countStatuses() != null) {
			text.append(", counts statuses ").append(rule.countStatuses());
		}
		if (rule.condition() != null) {
			text.append(", when bean ").append(rule.condition()).append(" says so");
		}
		if (block != null) {
			text.append(", refused keys blocked for ").append(RateLimit.label(block.blockFor()));
			if (block.multiplier() > 1) {
				text.append(" (x").append(block.multiplier()).append(" for repeat offenders, up to ")
					.append(RateLimit.label(block.max())).append(')');
			}
		}
		if (!rule.enforce()) {
			text.append(", soft (never refuses; the handler is told)");
		}
		return rule.shadow() ? text.append(", shadow mode (observes, never refuses)").toString() : text.toString();
	}


	/**
	 * Describes each policy of a rule, named as the rate-limit headers name it: {@code 100 per minute per client
	 * address}, {@code 10000 per day (UTC) per user}, {@code 2 in flight per value of header X-Api-Key}.
	 */
	static Map<String, String> policies(RateLimitRule rule) {
		Map<String, String> policies = new LinkedHashMap<>();
		String whose = " per " + whose(rule.key());
		CalendarPeriod period = rule.period();
		for (int i = 0; i < rule.limits().size(); i++) {
			RateLimit limit = rule.limits().get(i);
			StringBuilder text = new StringBuilder().append(limit.limit()).append(" per ")
				.append((period != null) ? period.name().toLowerCase(Locale.ROOT) + " (" + rule.zone() + ")"
						: limit.windowInWords())
				.append(whose);
			if (limit.burst() != limit.limit()) {
				text.append(", bursts of up to ").append(limit.burst());
			}
			policies.put(rule.policyName(i), text.append(charges(rule)).toString());
		}
		RateLimit concurrency = rule.concurrency();
		if (concurrency != null) {
			// named as the draft-12 headers name it beside a limit per window of the rule's own name
			String name = policies.containsKey(rule.name()) ? rule.name() + "-concurrency" : rule.name();
			policies.put(name, concurrency.limit() + " in flight" + whose);
		}
		return policies;
	}

	/** Whose budget a key names, in words. */
	private static String whose(RuleKey key) {
		if (key instanceof RuleKey.ClientAddress) {
			return "client address";
		}
		if (key instanceof RuleKey.Principal) {
			return "user";
		}
		if (key instanceof RuleKey.Resolver) {
			return "key of the route's key resolver";
		}
		if (key instanceof RuleKey.Expression expression) {
			return "value of " + expression.expression();
		}
		String kind = (key instanceof RuleKey.Bean) ? "key of bean "
				: (key instanceof RuleKey.Param) ? "value of parameter " : "value of header ";
		return kind + key.name();
	}

	/** What a request takes of a budget, when it is not one permit, and a plan's other limits. */
	private static String charges(RateLimitRule rule) {
		StringBuilder text = new StringBuilder();
		if (rule.costFrom() != null) {
			text.append("; a request costs what its response reports");
		}
		else if (rule.cost() != 1) {
			text.append("; a request costs ").append(rule.cost());
		}
		if (rule.plan() != null) {
			text.append("; other plans: ").append(String.join(", ", rule.plans().entrySet().stream()
				.map((plan) -> plan.getKey() + " " + plan.getValue().stream()
					.map((limit) -> limit.limit() + " per " + limit.windowInWords())
					.reduce((a, b) -> a + " and " + b).orElse(""))
				.toList()));
		}
		return text.toString();
	}

}
