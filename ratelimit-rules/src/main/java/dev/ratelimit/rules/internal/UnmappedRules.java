package dev.ratelimit.rules.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
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
public final class UnmappedRules {

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

	/**
	 * The path patterns of an application's functional routes, as a stack's visitor of its router functions reads them:
	 * each route's paths under the paths of the routes it is nested in; a route without a path maps every path under
	 * them, and one whose predicate cannot be read (a custom one) maps none that can be told.
	 */
	public static final class Routes {

		private final Set<String> patterns = new LinkedHashSet<>();

		private final Deque<String> prefixes = new ArrayDeque<>();

		private List<String> paths = new ArrayList<>();

		private boolean unknown;

		/** Starts reading a predicate: of a nest or of a route. */
		public void startPredicate() {
			this.paths = new ArrayList<>();
			this.unknown = false;
		}

		/**
		 * A path pattern of the predicate being read.
		 * @param pattern the pattern
		 */
		public void path(String pattern) {
			this.paths.add(pattern);
		}

		/** A part of the predicate being read that says nothing of the path. */
		public void unknown() {
			this.unknown = true;
		}

		/** Ends reading a nest's predicate: the routes until {@link #endNest} are under its path. */
		public void nest() {
			this.prefixes.push(this.paths.isEmpty() ? prefix() : combine(prefix(), this.paths.get(0)));
		}

		/** Ends a nest. */
		public void endNest() {
			this.prefixes.pop();
		}

		/** Ends reading a route's predicate: its paths are mapped. */
		public void route() {
			if (this.paths.isEmpty()) {
				if (!this.unknown) {
					this.patterns.add(combine(prefix(), "/**"));
				}
				return;
			}
			for (String path : this.paths) {
				this.patterns.add(combine(prefix(), path));
			}
		}

		/** A router function that cannot be read: it may map any path. */
		public void unknownRoute() {
			this.patterns.add("/**");
		}

		/**
		 * Returns the path patterns of the routes read.
		 * @return the patterns
		 */
		public Set<String> patterns() {
			return this.patterns;
		}

		private String prefix() {
			String prefix = this.prefixes.peek();
			return (prefix != null) ? prefix : "";
		}

		private static String combine(String prefix, String path) {
			if (prefix.endsWith("/") && path.startsWith("/")) {
				return prefix + path.substring(1);
			}
			return (prefix.isEmpty() || path.startsWith("/")) ? prefix + path : prefix + "/" + path;
		}

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
