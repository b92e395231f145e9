package dev.ratelimit.web;

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
		text.append(", on ");
		if (rule.paths().isEmpty()) {
			text.append(rule.source());
		}
		else {
			text.append(rule.paths().stream().map(PathPattern::getPatternString).toList())
				.append(rule.methods().isEmpty() ? " (all methods)" : " " + rule.methods().stream().sorted().toList());
		}
		text.append(", key ").append(rule.key().spelling()).append(", cost ").append(rule.cost());
		if (rule.chargePerMessage()) {
			text.append(" per message of a streaming gRPC call");
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
