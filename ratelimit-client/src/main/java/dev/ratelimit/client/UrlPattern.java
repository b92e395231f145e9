package dev.ratelimit.client;

import java.util.Locale;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The calls a partner's limit covers: a scheme, a host (or {@code *.} and a domain, for its subdomains), a port (the
 * scheme's when not given, {@code *} for any) and a Spring path pattern, as in
 * {@code https://api.partner.example/v2/**}. The query is never matched. Host and path are normalised as a call's
 * are ({@link PartnerUrl}), so that every spelling of a URL matches alike.
 */
final class UrlPattern implements CallPattern {

	private static final int ANY_PORT = -1;

	private final String spelling;

	private final String scheme;

	private final String host;

	private final boolean subdomains;

	/** The port, {@link #ANY_PORT} for any. */
	private final int port;

	private final PathPattern path;

	private UrlPattern(String spelling, String scheme, String host, boolean subdomains, int port, PathPattern path) {
		this.spelling = spelling;
		this.scheme = scheme;
		this.host = host;
		this.subdomains = subdomains;
		this.port = port;
		this.path = path;
	}

	/**
	 * Parses a pattern.
	 * @param spelling the pattern
	 * @return the pattern
	 * @throws IllegalArgumentException saying what is wrong and how to write it
	 */
	static UrlPattern parse(String spelling) {
		String text = spelling.strip();
		int separator = text.indexOf("://");
		if (separator <= 0) {
			throw new IllegalArgumentException("give the scheme, the host and a path pattern, such as "
					+ "https://api.partner.example/**");
		}
		String scheme = text.substring(0, separator).toLowerCase(Locale.ROOT);
		if (!scheme.equals("http") && !scheme.equals("https")) {
			throw new IllegalArgumentException("the scheme must be http or https, but was " + scheme);
		}
		String rest = text.substring(separator + 3);
		if (rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0) {
			throw new IllegalArgumentException("leave out the query and the fragment: they are never matched, and in a "
					+ "path pattern ? stands for any character");
		}
		int slash = rest.indexOf('/');
		String authority = ((slash < 0) ? rest : rest.substring(0, slash)).toLowerCase(Locale.ROOT);
		String path = (slash < 0) ? "/**" : rest.substring(slash);
		int colon = authority.lastIndexOf(':');
		String host = authority;
		int port = PartnerUrl.defaultPort(scheme);
		if (colon > authority.lastIndexOf(']')) {
			host = authority.substring(0, colon);
			String portText = authority.substring(colon + 1);
			try {
				port = portText.equals("*") ? ANY_PORT : Integer.parseInt(portText);
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException("the port must be a number, or * for any, but was '" + portText + "'");
			}
		}
		boolean subdomains = host.startsWith("*.");
		if (subdomains) {
			host = host.substring(2);
		}
		if (host.isEmpty() || host.equals(".") || host.contains("*")) {
			throw new IllegalArgumentException("give a host, or *. and a domain for its subdomains, but was '"
					+ authority + "'");
		}
		try {
			// compared as the calls' hosts are: ASCII, lower case, no trailing dot, one spelling of an IP
			host = PartnerUrl.host(host);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("the host '" + host + "' is no host name, IPv4 address or IPv6 "
					+ "literal in brackets (" + ex.getMessage() + ")");
		}
		if (subdomains) {
			host = "." + host;
		}
		PathPattern pattern;
		try {
			pattern = PathPatternParser.defaultInstance.parse(PartnerUrl.path(path));
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("the path '" + path + "' is no Spring path pattern: " + ex.getMessage());
		}
		return new UrlPattern(spelling, scheme, host, subdomains, port, pattern);
	}

	/**
	 * Returns whether the pattern covers a call's URL: scheme, host, port and path match; never a gRPC call.
	 */
	@Override
	public boolean matches(PartnerCall call) {
		return call instanceof PartnerUrl url && matches(url);
	}

	private boolean matches(PartnerUrl url) {
		if (!this.scheme.equals(url.scheme())) {
			return false;
		}
		if (this.port != ANY_PORT && url.port() != this.port) {
			return false;
		}
		if (this.subdomains ? !url.host().endsWith(this.host) : !url.host().equals(this.host)) {
			return false;
		}
		return this.path.matches(PathContainer.parsePath(url.path()));
	}

	@Override
	public String toString() {
		return this.spelling;
	}

}
