package dev.ratelimit.web.servlet;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Finds a request's client address: {@link HttpServletRequest#getRemoteAddr()}, unless that address
 * is a trusted proxy, in which case the right-most address of {@code X-Forwarded-For} (else
 * {@code Forwarded}) that is not itself a trusted proxy. A client outside the trusted proxies can
 * never choose its address by sending these headers; malformed values fall back to the remote
 * address.
 */
public final class ClientAddressResolver implements RateLimitKeyResolver {

	private static final int MAX_HOPS = 32;

	private final List<CidrBlock> trustedProxies;

	/**
	 * Creates a resolver.
	 * @param trustedProxies the proxies whose forwarding headers are believed
	 */
	public ClientAddressResolver(List<CidrBlock> trustedProxies) {
		this.trustedProxies = List.copyOf(trustedProxies);
	}

	@Override
	public String resolveKey(HttpServletRequest request) {
		return resolve(request);
	}

	/**
	 * Returns the client address of the request, in its canonical text form.
	 * @param request the request
	 * @return the address
	 */
	public String resolve(HttpServletRequest request) {
		String remote = request.getRemoteAddr();
		InetAddress remoteAddress = CidrBlock.parseAddress(remote);
		if (remoteAddress == null) {
			return (remote != null) ? remote : "unknown";
		}
		if (!isTrusted(remoteAddress)) {
			return remoteAddress.getHostAddress();
		}
		List<String> hops = forwardedFor(request);
		if (hops == null) {
			return remoteAddress.getHostAddress();
		}
		InetAddress client = remoteAddress;
		for (int i = hops.size() - 1; i >= 0; i--) {
			InetAddress hop = CidrBlock.parseAddress(hops.get(i));
			if (hop == null) {
				return remoteAddress.getHostAddress();
			}
			client = hop;
			if (!isTrusted(hop)) {
				break;
			}
		}
		return client.getHostAddress();
	}

	private boolean isTrusted(InetAddress address) {
		for (CidrBlock block : this.trustedProxies) {
			if (block.contains(address)) {
				return true;
			}
		}
		return false;
	}

	private static @Nullable List<String> forwardedFor(HttpServletRequest request) {
		List<String> xff = headerList(request, "X-Forwarded-For");
		if (xff != null) {
			return xff;
		}
		List<String> forwarded = headerList(request, "Forwarded");
		if (forwarded == null) {
			return null;
		}
		List<String> hops = new ArrayList<>();
		for (String element : forwarded) {
			String forValue = null;
			for (String pair : element.split(";")) {
				int eq = pair.indexOf('=');
				if (eq > 0 && pair.substring(0, eq).strip().toLowerCase(Locale.ROOT).equals("for")) {
					forValue = stripPort(unquote(pair.substring(eq + 1).strip()));
				}
			}
			// an element without for= cannot be placed in the chain: distrust the whole header
			if (forValue == null) {
				return List.of("");
			}
			hops.add(forValue);
		}
		return hops;
	}

	private static @Nullable List<String> headerList(HttpServletRequest request, String name) {
		Enumeration<String> values = request.getHeaders(name);
		if (values == null || !values.hasMoreElements()) {
			return null;
		}
		List<String> items = new ArrayList<>();
		while (values.hasMoreElements()) {
			for (String item : values.nextElement().split(",")) {
				items.add(item.strip());
				if (items.size() > MAX_HOPS) {
					return List.of("");
				}
			}
		}
		return items;
	}

	private static String unquote(String value) {
		if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
			return value.substring(1, value.length() - 1);
		}
		return value;
	}

	private static String stripPort(String node) {
		if (node.startsWith("[")) {
			int close = node.indexOf(']');
			return (close > 0) ? node.substring(0, close + 1) : node;
		}
		int colon = node.indexOf(':');
		// one colon: an IPv4 address with a port; more: an unbracketed IPv6 address
		if (colon > 0 && node.indexOf(':', colon + 1) < 0) {
			return node.substring(0, colon);
		}
		return node;
	}

}
