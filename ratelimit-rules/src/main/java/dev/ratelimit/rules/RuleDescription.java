package dev.ratelimit.rules;

import java.util.Locale;

import dev.ratelimit.BlockPolicy;
import dev.ratelimit.RateLimit;

import org.springframework.web.util.pattern.PathPattern;

/**
 * A rule in one line, for the startup log: its limits, algorithm, paths or where it is attached, key, cost,
 * blocks and shadow mode.
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

}
