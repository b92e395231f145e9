package dev.ratelimit.client;

import java.io.ByteArrayOutputStream;
import java.net.IDN;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * A call's URL as the partners' patterns compare it, normalised once: the scheme and the host in lower case, a host
 * in its ASCII form ({@link IDN#toASCII}) without a trailing dot, an IPv6 literal in one spelling (parsed, never
 * looked up; an IPv4-mapped one as its IPv4 address), the scheme's port when none is given, and the path normalised as
 * RFC 3986 section 6 says (percent-encoded unreserved characters decoded, other escapes in upper case, dot segments
 * removed), {@code //} read as {@code /}, as servers read it. The query is left out. The patterns' hosts and paths
 * are normalised by the same methods.
 */
final class PartnerUrl implements PartnerCall {

	private final String scheme;

	private final String host;

	private final int port;

	private final String path;

	private PartnerUrl(String scheme, String host, int port, String path) {
		this.scheme = scheme;
		this.host = host;
		this.port = port;
		this.path = path;
	}

	/**
	 * Normalises a call's URL.
	 * @param url the URL, as the client holds it (a host that {@link URI} cannot parse, such as one with {@code _},
	 * is read from the authority)
	 * @return the URL, normalised
	 */
	static PartnerUrl of(URI url) {
		String scheme = (url.getScheme() != null) ? url.getScheme().toLowerCase(Locale.ROOT) : "";
		String authority = (url.getRawAuthority() != null) ? url.getRawAuthority() : "";
		authority = authority.substring(authority.lastIndexOf('@') + 1);
		int colon = authority.lastIndexOf(':');
		int port = -1;
		if (colon > authority.lastIndexOf(']')) {
			String digits = authority.substring(colon + 1);
			authority = authority.substring(0, colon);
			if (!digits.isEmpty()) {
				try {
					port = Integer.parseInt(digits);
				}
				catch (NumberFormatException ex) {
					// no client sends it; no pattern covers it
					port = -2;
				}
			}
		}
		String host;
		try {
			host = host(authority);
		}
		catch (IllegalArgumentException ex) {
			// not a host any pattern is written in (a label too long for IDNA, say): compared as written
			host = authority.toLowerCase(Locale.ROOT);
		}
		return new PartnerUrl(scheme, host, (port == -1) ? defaultPort(scheme) : port, path(url.getRawPath()));
	}

	/**
	 * Normalises a host: percent-escapes decoded, its ASCII form in lower case without a trailing dot, or an IP
	 * literal in one spelling.
	 * @param host the host as written, an IPv6 literal in brackets
	 * @return the host, normalised
	 * @throws IllegalArgumentException when it is no host name (IDNA refuses it) or an IPv6 literal that is not one
	 */
	static String host(String host) {
		String decoded = (host.indexOf('%') >= 0 && !host.startsWith("[")) ? decode(host) : host;
		if (decoded.startsWith("[") && decoded.endsWith("]")) {
			return ipLiteral(decoded.substring(1, decoded.length() - 1));
		}
		if (decoded.endsWith(".")) {
			decoded = decoded.substring(0, decoded.length() - 1);
		}
		if (decoded.isEmpty()) {
			return decoded;
		}
		// without USE_STD3_ASCII_RULES: _ is allowed, as container networks name hosts so
		return IDN.toASCII(decoded, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
	}

	private static String ipLiteral(String literal) {
		String lower = literal.toLowerCase(Locale.ROOT);
		if (lower.startsWith("v")) {
			// IPvFuture: nothing to canonicalise
			return "[" + lower + "]";
		}
		for (int i = 0; i < lower.length(); i++) {
			char c = lower.charAt(i);
			// only what an IPv6 literal holds reaches InetAddress, which then parses and never looks up
			if (!(c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
				throw new IllegalArgumentException("'[" + literal + "]' is no IPv6 address");
			}
		}
		try {
			InetAddress address = InetAddress.getByName(lower);
			// an IPv4-mapped address is where the JVM connects: its IPv4 address
			return (address instanceof Inet4Address) ? address.getHostAddress() : "[" + address.getHostAddress() + "]";
		}
		catch (UnknownHostException ex) {
			throw new IllegalArgumentException("'[" + literal + "]' is no IPv6 address");
		}
	}

	/**
	 * Normalises a path as RFC 3986 section 6.2.2 says (percent-encoded unreserved characters decoded, other escapes in
	 * upper case, dot segments removed), {@code //} read as {@code /} first, as servers read it.
	 * @param rawPath the path, percent-encoded, possibly empty or {@code null}
	 * @return the path, starting with {@code /}
	 */
	static String path(@Nullable String rawPath) {
		if (rawPath == null || rawPath.isEmpty()) {
			return "/";
		}
		String path = unescapeUnreserved(rawPath).replaceAll("/{2,}", "/");
		return removeDotSegments(path.startsWith("/") ? path : "/" + path);
	}

	private static String unescapeUnreserved(String path) {
		if (path.indexOf('%') < 0) {
			return path;
		}
		StringBuilder out = new StringBuilder(path.length());
		for (int i = 0; i < path.length(); i++) {
			char c = path.charAt(i);
			int high = (c == '%' && i + 2 < path.length()) ? Character.digit(path.charAt(i + 1), 16) : -1;
			int low = (high >= 0) ? Character.digit(path.charAt(i + 2), 16) : -1;
			if (low < 0) {
				out.append(c);
				continue;
			}
			char decoded = (char) (high * 16 + low);
			if (isUnreserved(decoded)) {
				out.append(decoded);
			}
			else {
				out.append('%').append(Character.toUpperCase(path.charAt(i + 1))).append(Character.toUpperCase(path.charAt(i + 2)));
			}
			i += 2;
		}
		return out.toString();
	}

	private static boolean isUnreserved(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
				|| c == '_' || c == '~';
	}

	/** RFC 3986 section 5.2.4, on a path that starts with {@code /}. */
	private static String removeDotSegments(String path) {
		Deque<String> segments = new ArrayDeque<>();
		String[] parts = path.substring(1).split("/", -1);
		for (int i = 0; i < parts.length; i++) {
			String part = parts[i];
			boolean last = i == parts.length - 1;
			if (part.equals(".") || part.equals("..")) {
				if (part.equals("..") && !segments.isEmpty()) {
					segments.removeLast();
				}
				if (last) {
					// "/a/b/.." is "/a/": the directory stays
					segments.addLast("");
				}
			}
			else {
				segments.addLast(part);
			}
		}
		return "/" + String.join("/", segments);
	}

	private static String decode(String text) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
		int i = 0;
		while (i < text.length()) {
			int c = text.codePointAt(i);
			int high = (c == '%' && i + 2 < text.length()) ? Character.digit(text.charAt(i + 1), 16) : -1;
			int low = (high >= 0) ? Character.digit(text.charAt(i + 2), 16) : -1;
			if (low >= 0) {
				bytes.write(high * 16 + low);
				i += 3;
			}
			else {
				byte[] encoded = new String(Character.toChars(c)).getBytes(StandardCharsets.UTF_8);
				bytes.write(encoded, 0, encoded.length);
				i += Character.charCount(c);
			}
		}
		return bytes.toString(StandardCharsets.UTF_8);
	}

	static int defaultPort(String scheme) {
		return (scheme.equals("https") || scheme.equals("wss")) ? 443 : 80;
	}

	/**
	 * Returns the scheme.
	 * @return {@code http} or {@code https}, in lower case
	 */
	String scheme() {
		return this.scheme;
	}

	/**
	 * Returns the host.
	 * @return the host, normalised
	 */
	String host() {
		return this.host;
	}

	/**
	 * Returns the port.
	 * @return the port, the scheme's when the URL gives none
	 */
	int port() {
		return this.port;
	}

	/**
	 * Returns the path.
	 * @return the path, normalised, starting with {@code /}
	 */
	String path() {
		return this.path;
	}

	@Override
	public String describe() {
		return "call to " + this;
	}

	/**
	 * Returns the URL as it is compared, without the query.
	 * @return scheme, host, port and path, normalised
	 */
	@Override
	public String toString() {
		return this.scheme + "://" + this.host + ":" + this.port + this.path;
	}

}
