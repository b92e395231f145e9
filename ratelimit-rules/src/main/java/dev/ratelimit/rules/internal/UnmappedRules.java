package dev.ratelimit.rules.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.ratelimit.rules.RateLimitRule;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Finds, once the application has started, the rules from properties none of whose path patterns matches a path that
 * a handler of the application maps (Spring MVC's or WebFlux's request mappings), and warns of each once: such a rule
 * still applies, since filters, static resources or another servlet may serve its paths, but it is more often a typo.
 * Each web stack hands over the patterns its handler mappings know; this class knows no stack.
 */
final class UnmappedRules {

	private static final Log logger = LogFactory.getLog(UnmappedRules.class);

	/** A path variable, {@code {name}}, {@code {name:regex}} or {@code {*name}}. */
	private static final Pattern VARIABLE = Pattern.compile("\\{[^}]*\\}");

	/** A wildcard: {@code **}, {@code *} or {@code ?}. */
	private static final Pattern WILDCARD = Pattern.compile("\\*\\*|\\*|\\?");

	/** What matches the rest of a path, from no segment on: {@code /**} or {@code /{*name}}. */
	private static final Pattern REST = Pattern.compile("/\\*\\*$|/\\{\\*[^}]*\\}$");

	/** Values a sample path gives variables and wildcards: a word, and a number for variables that want digits. */
	private static final List<String> SAMPLE_VALUES = List.of("x", "1");

	private UnmappedRules() {
	}

	/**
	 * Warns of each rule none of whose path patterns matches a mapped path.
	 * @param rules the rules from properties
	 * @param mappedPatterns the path patterns the application's handler mappings map
	 * @return the rules warned of
	 */
	public static List<RateLimitRule> warn(List<RateLimitRule> rules, Collection<String> mappedPatterns) {
		List<PathPattern> mapped = new ArrayList<>(mappedPatterns.size());
		for (String pattern : mappedPatterns) {
			try {
				mapped.add(PathPatternParser.defaultInstance.parse(pattern.isEmpty() ? "/" : pattern));
			}
			catch (PatternParseException ex) {
				// a pattern of another syntax (AntPathMatcher's): nothing can be told of what it maps
				return List.of();
			}
		}
		List<RateLimitRule> unmapped = new ArrayList<>();
		for (RateLimitRule rule : rules) {
			if (!rule.paths().isEmpty() && !matchesAny(rule.paths(), mapped)) {
				unmapped.add(rule);
				logger.warn("Rate-limit rule '" + rule.name() + "' (ratelimit.rules." + rule.name() + ".paths="
						+ String.join(",", rule.paths().stream().map(PathPattern::getPatternString).toList())
						+ ") matches no path a handler of this application maps; it still applies to requests to those "
						+ "paths (filters, static resources or another servlet may serve them), but check them for a typo");
			}
		}
		return unmapped;
	}

	private static boolean matchesAny(List<PathPattern> patterns, List<PathPattern> mapped) {
		for (PathPattern pattern : patterns) {
			for (PathPattern handler : mapped) {
				if (overlap(pattern, handler)) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Returns whether two patterns match a path in common, as far as samples tell: a path made of each one's literal
	 * parts, its variables and wildcards filled in, that the other matches.
	 */
	static boolean overlap(PathPattern one, PathPattern other) {
		return matchesASample(one, other) || matchesASample(other, one);
	}

	private static boolean matchesASample(PathPattern pattern, PathPattern sampled) {
		String spelled = sampled.getPatternString();
		// the rest of a path may be no segment at all: /api/** matches /api
		String withoutRest = REST.matcher(spelled).replaceAll("");
		for (String template : List.of(spelled, withoutRest.isEmpty() ? "/" : withoutRest)) {
			for (String value : SAMPLE_VALUES) {
				String sample = WILDCARD.matcher(VARIABLE.matcher(template).replaceAll(value)).replaceAll(value);
				if (pattern.matches(PathContainer.parsePath(sample))) {
					return true;
				}
			}
		}
		return false;
	}

}
