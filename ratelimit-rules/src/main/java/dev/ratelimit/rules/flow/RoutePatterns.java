package dev.ratelimit.rules.flow;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The path patterns of an application's functional routes, as a stack's visitor of its router functions reads them:
 * each route's paths under the paths of the routes it is nested in; a route without a path maps every path under
 * them, and one whose predicate cannot be read (a custom one) maps none that can be told.
 *
 * @since 0.1.0
 */
public final class RoutePatterns {

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
