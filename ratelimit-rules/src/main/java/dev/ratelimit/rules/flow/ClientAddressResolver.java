package dev.ratelimit.rules.flow;

import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * Finds a call's client address, as the {@code ip} key and the address lists read it: the address of the connection's
 * peer, or, when that peer is a trusted proxy, the client the proxies' forwarding header names. An application may
 * replace the engine's resolver (trusted proxies from {@code ratelimit.trusted-proxies}) with a bean of its own.
 *
 * @since 0.1.0
 */
public interface ClientAddressResolver {

	/**
	 * Returns the client address of a call, in its canonical text form.
	 * @param remote the address of the connection's peer, as the server gives it
	 * @param headers every value of a request header (or metadata key) by name, empty when absent
	 * @return the address
	 */
	String resolve(@Nullable String remote, Function<String, List<String>> headers);

	/**
	 * Returns whether the connection's peer is a trusted proxy, whose headers are believed.
	 * @param remote the address of the connection's peer, as the server gives it
	 * @return {@code true} when it is one of the trusted proxies
	 */
	boolean isTrustedProxy(@Nullable String remote);

	/**
	 * Returns what a client address charges budgets under: an IPv4 address itself, an IPv6 address the network it
	 * shares a budget with.
	 * @param clientAddress the address, as {@link #resolve} returns it
	 * @return the budget's address
	 */
	String budgetAddress(String clientAddress);

}
