package dev.ratelimit.rules.internal;

import java.net.InetAddress;
import java.util.List;

import dev.ratelimit.rules.CidrBlock;

/**
 * Client addresses that skip every rule, and client addresses refused before any rule.
 *
 * @param allow the blocks whose requests skip every rule, without a Redis call
 * @param deny the blocks whose requests are refused with 403 before any rule; a denied address stays
 * denied even when it is also allowed
 * @since 0.1.0
 */
record AddressLists(List<CidrBlock> allow, List<CidrBlock> deny) {

	/** No address allowed or denied. */
	public static final AddressLists NONE = new AddressLists(List.of(), List.of());

	/**
	 * Creates the lists.
	 * @param allow the blocks whose requests skip every rule
	 * @param deny the blocks whose requests are refused
	 */
	public AddressLists {
		allow = List.copyOf(allow);
		deny = List.copyOf(deny);
	}

	/**
	 * Returns whether any address is allowed or denied, so that a web stack need not resolve a request's
	 * client address for nothing.
	 * @return {@code true} when a list is not empty
	 */
	public boolean isEmpty() {
		return this.allow.isEmpty() && this.deny.isEmpty();
	}

	/**
	 * Returns what the lists say of a client address.
	 * @param clientAddress the request's client address
	 * @return whether it is denied, allowed, or neither (its request meets the rules)
	 */
	public Screening screen(String clientAddress) {
		if (isEmpty()) {
			return Screening.CHECKED;
		}
		InetAddress address = CidrBlock.parseAddress(clientAddress);
		if (address == null) {
			return Screening.CHECKED;
		}
		if (contains(this.deny, address)) {
			return Screening.DENIED;
		}
		return contains(this.allow, address) ? Screening.ALLOWED : Screening.CHECKED;
	}

	private static boolean contains(List<CidrBlock> blocks, InetAddress address) {
		for (CidrBlock block : blocks) {
			if (block.contains(address)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * What the address lists say of a request.
	 */
	public enum Screening {

		/** Refused with 403 before any rule. */
		DENIED,

		/** Skips every rule. */
		ALLOWED,

		/** Meets the rules. */
		CHECKED

	}

}
