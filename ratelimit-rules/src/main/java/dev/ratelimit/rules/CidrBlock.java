package dev.ratelimit.rules;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * A block of IPv4 or IPv6 addresses in CIDR notation ({@code 10.0.0.0/8}, {@code ::1/128}); a single
 * address stands for itself: the trusted proxies and the allowed and denied client addresses, parsed once where they
 * are read (properties).
 *
 * @since 0.1.0
 */
public final class CidrBlock {

	private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

	// starts with a hex digit or ':' so that the JDK parses it as a literal and never looks it up
	private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:][0-9A-Fa-f:.]*");

	private final byte[] network;

	private final int prefixLength;

	private final String text;

	private CidrBlock(byte[] network, int prefixLength, String text) {
		this.network = network;
		this.prefixLength = prefixLength;
		this.text = text;
	}

	/**
	 * Parses a block such as {@code 192.168.0.0/16}, {@code 2001:db8::/32} or {@code 127.0.0.1}.
	 * @param text the block
	 * @return the block
	 * @throws IllegalArgumentException when the text is not an IP literal with an optional prefix length
	 */
	public static CidrBlock parse(String text) {
		String trimmed = text.strip();
		int slash = trimmed.indexOf('/');
		String address = (slash < 0) ? trimmed : trimmed.substring(0, slash);
		InetAddress parsed = parseAddress(address);
		if (parsed == null) {
			throw new IllegalArgumentException("'" + text + "' is not an IP address or CIDR block; use a form such as "
					+ "10.0.0.0/8, 192.168.1.10 or 2001:db8::/32");
		}
		byte[] bytes = parsed.getAddress();
		int maxPrefix = bytes.length * 8;
		int prefix = maxPrefix;
		if (slash >= 0) {
			try {
				prefix = Integer.parseInt(trimmed.substring(slash + 1));
			}
			catch (NumberFormatException ex) {
				prefix = -1;
			}
			if (prefix < 0 || prefix > maxPrefix) {
				throw new IllegalArgumentException("'" + text + "' has an invalid prefix length; use 0 to " + maxPrefix
						+ " after the '/'");
			}
		}
		return new CidrBlock(mask(bytes, prefix), prefix, trimmed);
	}

	/**
	 * Parses an IPv4 or IPv6 literal without ever querying DNS.
	 * @param text the literal, IPv6 optionally in brackets
	 * @return the address, or {@code null} when the text is not an IP literal
	 */
	public static @Nullable InetAddress parseAddress(@Nullable String text) {
		if (text == null) {
			return null;
		}
		String literal = text.strip();
		if (literal.startsWith("[") && literal.endsWith("]")) {
			literal = literal.substring(1, literal.length() - 1);
		}
		if (literal.isEmpty() || literal.length() > 45) {
			return null;
		}
		byte[] ipv4 = canonicalIpv4(literal);
		if (ipv4 != null) {
			// the common case, read on every request: no pattern, no split
			try {
				return InetAddress.getByAddress(ipv4);
			}
			catch (UnknownHostException ex) {
				throw new IllegalStateException(ex);
			}
		}
		if (IPV4.matcher(literal).matches()) {
			for (String part : literal.split("\\.")) {
				if (Integer.parseInt(part) > 255) {
					return null;
				}
			}
		}
		else if (literal.indexOf(':') < 0 || !IPV6.matcher(literal).matches()) {
			return null;
		}
		try {
			// a literal of these characters is parsed, never looked up
			return InetAddress.getByName(literal);
		}
		catch (UnknownHostException ex) {
			return null;
		}
	}

	/**
	 * Reads an IPv4 address in its canonical form: four decimal parts of 0 to 255 without leading zeros. Any
	 * other text, an IPv4 literal with leading zeros included, is left to the general parser.
	 */
	private static byte @Nullable [] canonicalIpv4(String literal) {
		byte[] bytes = new byte[4];
		int part = 0;
		int value = 0;
		int digits = 0;
		for (int i = 0, n = literal.length(); i <= n; i++) {
			char c = (i < n) ? literal.charAt(i) : '.';
			if (c >= '0' && c <= '9') {
				if ((digits == 1 && value == 0) || digits == 3) {
					return null;
				}
				value = value * 10 + (c - '0');
				digits++;
			}
			else if (c == '.' && digits > 0 && value <= 255 && part < 4) {
				bytes[part++] = (byte) value;
				value = 0;
				digits = 0;
			}
			else {
				return null;
			}
		}
		return (part == 4) ? bytes : null;
	}

	/**
	 * Returns whether {@code address} lies in this block.
	 * @param address the address
	 * @return {@code true} when it does
	 */
	public boolean contains(InetAddress address) {
		byte[] bytes = address.getAddress();
		if (bytes.length != this.network.length) {
			return false;
		}
		return java.util.Arrays.equals(mask(bytes, this.prefixLength), this.network);
	}

	/**
	 * Returns the network of {@code prefixLength} bits that an address lies in, as a block in its canonical
	 * text form ({@code 2001:db8:1:200::/56}, zeros compressed as RFC 5952 says).
	 * @param address the address
	 * @param prefixLength the prefix length
	 * @return the block
	 */
	public static String networkOf(InetAddress address, int prefixLength) {
		byte[] network = mask(address.getAddress(), prefixLength);
		if (network.length == 4) {
			return (network[0] & 0xFF) + "." + (network[1] & 0xFF) + "." + (network[2] & 0xFF) + "." + (network[3] & 0xFF)
					+ "/" + prefixLength;
		}
		int[] groups = new int[8];
		for (int i = 0; i < 8; i++) {
			groups[i] = ((network[2 * i] & 0xFF) << 8) | (network[2 * i + 1] & 0xFF);
		}
		// the longest run of two or more zero groups (the first of equals) becomes "::"
		int runStart = -1;
		int runLength = 0;
		for (int i = 0; i < 8; i++) {
			int length = 0;
			while (i + length < 8 && groups[i + length] == 0) {
				length++;
			}
			if (length > runLength && length >= 2) {
				runStart = i;
				runLength = length;
			}
			i += length;
		}
		StringBuilder text = new StringBuilder();
		for (int i = 0; i < 8; i++) {
			if (i == runStart) {
				text.append("::");
				i += runLength - 1;
				continue;
			}
			if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
				text.append(':');
			}
			text.append(Integer.toHexString(groups[i]));
		}
		return text.append('/').append(prefixLength).toString();
	}

	private static byte[] mask(byte[] address, int prefixLength) {
		byte[] masked = address.clone();
		for (int i = 0; i < masked.length; i++) {
			int bits = Math.max(0, Math.min(8, prefixLength - i * 8));
			masked[i] &= (byte) (0xFF << (8 - bits));
		}
		return masked;
	}

	@Override
	public String toString() {
		return this.text;
	}

}
