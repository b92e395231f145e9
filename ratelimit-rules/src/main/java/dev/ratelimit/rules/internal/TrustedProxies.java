package dev.ratelimit.rules.internal;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import dev.ratelimit.rules.CidrBlock;
import dev.ratelimit.rules.ForwardedHeader;
import dev.ratelimit.rules.flow.ClientAddressResolver;

/**
 * Finds a request's client address: the address of the connection's peer, unless that address
 * is a trusted proxy, in which case the right-most address of the forwarding header the proxies
 * write ({@code X-Forwarded-For} or {@code Forwarded}, one of them only) that is not itself a trusted
 * proxy. A client outside the trusted proxies can never choose its address by sending these headers;
 * what stands left of the first untrusted hop is the client's own text and is never read, and a
 * malformed hop among the trusted ones falls back to the remote address. For budgets, an IPv6 address stands
 * for its network of {@code ipv6PrefixLength} bits ({@link #budgetAddress}), so that a client holding a /64 or
 * a /56 does not get a fresh budget for every address of it; an IPv4-mapped IPv6 address is read as IPv4.
 *
 * @since 0.1.0
 */
final class TrustedProxies implements ClientAddressResolver {

	private static final int MAX_TRUSTED_HOPS = 32;

	private final List<CidrBlock> trustedProxies;

	private final ForwardedHeader header;

	private final int ipv6PrefixLength;

	/**
	 * Creates a resolver that gives every IPv6 address a budget of its own.
	 * @param trustedProxies the proxies whose forwarding header is believed
	 * @param header the header the proxies write
	 */
	public TrustedProxies(List<CidrBlock> trustedProxies, ForwardedHeader header) {
		this(trustedProxies, header, 128);
	}

	/**
	 * Creates a resolver.
	 * @param trustedProxies the proxies whose forwarding header is believed
	 * @param header the header the proxies write
	 * @param ipv6PrefixLength the length of the network prefix IPv6 addresses share a budget under, 1 to 128
	 */
	public TrustedProxies(List<CidrBlock> trustedProxies, ForwardedHeader header, int ipv6PrefixLength) {
		if (ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
			throw new IllegalArgumentException("ipv6PrefixLength must be 1 to 128, but was " + ipv6PrefixLength);
		}
		this.trustedProxies = List.copyOf(trustedProxies);
		this.header = header;
		this.ipv6PrefixLength = ipv6PrefixLength;
	}

	/**
	 * Returns what a client address charges budgets under: an IPv4 address itself; an IPv6 address its network
	 * of the configured prefix length, written as a block that operators can read ({@code 2001:db8:1:200::/56});
	 * anything that is no IP literal as it is.
	 * @param clientAddress the address, as {@link #resolve} returns it
	 * @return the budget's address
	 */
	@Override
	public String budgetAddress(String clientAddress) {
		InetAddress address = (clientAddress.indexOf(':') < 0) ? null : CidrBlock.parseAddress(clientAddress);
		if (!(address instanceof Inet6Address) || this.ipv6PrefixLength == 128) {
			return clientAddress;
		}
		return CidrBlock.networkOf(address, this.ipv6PrefixLength);
	}

	/**
	 * Returns the client address of a request, in its canonical text form.
	 * @param remote the address of the connection's peer, as the server gives it
	 * @param headers every value of a request header by name, empty when absent
	 * @return the address
	 */
	@Override
	public String resolve(@Nullable String remote, Function<String, List<String>> headers) {
		InetAddress remoteAddress = CidrBlock.parseAddress(remote);
		if (remoteAddress == null) {
			return (remote != null) ? remote : "unknown";
		}
		if (!isTrusted(remoteAddress)) {
			return textOf(remote, remoteAddress);
		}
		List<String> hops = (this.header == ForwardedHeader.FORWARDED) ? forwardedHops(headers)
				: headerItems(headers, "X-Forwarded-For");
		InetAddress client = remoteAddress;
		for (int i = hops.size() - 1, walked = 0; i >= 0; i--, walked++) {
			InetAddress hop = CidrBlock.parseAddress(stripPort(hops.get(i)));
			if (hop == null || walked == MAX_TRUSTED_HOPS) {
				return remoteAddress.getHostAddress();
			}
			client = hop;
			if (!isTrusted(hop)) {
				break;
			}
		}
		return client.getHostAddress();
	}

	/**
	 * The canonical text of {@code address}: {@code remote} itself when it is already that text (an IPv4 address as
	 * servers give it, read on every request), so that it is not written out again.
	 */
	private static String textOf(@Nullable String remote, InetAddress address) {
		return (remote != null && address instanceof Inet4Address && isDottedQuad(remote, address.getAddress()))
				? remote : address.getHostAddress();
	}

	/** Whether {@code text} is exactly the four bytes in decimal, without leading zeros, joined by dots. */
	private static boolean isDottedQuad(String text, byte[] bytes) {
		int at = 0;
		for (int i = 0; i < bytes.length; i++) {
			if (i > 0 && (at >= text.length() || text.charAt(at++) != '.')) {
				return false;
			}
			int from = at;
			int value = 0;
			while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9' && at - from < 3) {
				value = value * 10 + (text.charAt(at++) - '0');
			}
			boolean leadingZero = at - from > 1 && text.charAt(from) == '0';
			if (at == from || leadingZero || value != (bytes[i] & 0xff)) {
				return false;
			}
		}
		return at == text.length();
	}

	/**
	 * Returns whether the connection's peer is a trusted proxy, whose headers are believed.
	 * @param remote the address of the connection's peer, as the server gives it
	 * @return {@code true} when it is one of the trusted proxies
	 */
	@Override
	public boolean isTrustedProxy(@Nullable String remote) {
		InetAddress remoteAddress = this.trustedProxies.isEmpty() ? null : CidrBlock.parseAddress(remote);
		return remoteAddress != null && isTrusted(remoteAddress);
	}

	private boolean isTrusted(InetAddress address) {
		for (CidrBlock block : this.trustedProxies) {
			if (block.contains(address)) {
				return true;
			}
		}
		return false;
	}

	private static List<String> forwardedHops(Function<String, List<String>> headers) {
		List<String> hops = new ArrayList<>();
		for (String element : headerItems(headers, "Forwarded")) {
			String forValue = "";
			for (String pair : element.split(";")) {
				int eq = pair.indexOf('=');
				if (eq > 0 && pair.substring(0, eq).strip().toLowerCase(Locale.ROOT).equals("for")) {
					forValue = unquote(pair.substring(eq + 1).strip());
				}
			}
			// an element without for= is malformed where it is read
			hops.add(forValue);
		}
		return hops;
	}

	private static List<String> headerItems(Function<String, List<String>> headers, String name) {
		List<String> items = new ArrayList<>();
		for (String value : headers.apply(name)) {
			for (String item : value.split(",")) {
				items.add(item.strip());
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
