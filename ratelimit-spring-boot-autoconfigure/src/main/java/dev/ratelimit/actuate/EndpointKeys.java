package dev.ratelimit.actuate;

import java.net.InetAddress;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.CidrBlock;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;

/**
 * Finds the budget an operation of the endpoint is about: the rule by its name, the key as the path or the
 * query gives it, an address as budgets name it.
 */
final class EndpointKeys {

	private final RateLimitRuleRegistry rules;

	private final ClientAddressResolver addresses;

	private final boolean reactive;

	EndpointKeys(RateLimitRuleRegistry rules, ClientAddressResolver addresses, boolean reactive) {
		this.rules = rules;
		this.addresses = addresses;
		this.reactive = reactive;
	}

	/**
	 * Returns the key of the path form {@code /actuator/ratelimit/{rule}/{key}}: its segments after the rule's.
	 * WebFlux hands the operation every segment from the rule's on ({@code [api, team, alpha]} for
	 * {@code /api/team/alpha}; Spring MVC {@code [team, alpha]}), so that one is dropped there.
	 * {@code RateLimitEndpointOnEveryStackTests} reads a key that starts with its rule's name on both stacks:
	 * should Spring Boot hand WebFlux only the key's segments, it fails.
	 */
	String keyOf(String rule, String[] segments) {
		int from = (this.reactive && segments.length > 1 && segments[0].equals(rule)) ? 1 : 0;
		return String.join("/", Arrays.copyOfRange(segments, from, segments.length));
	}

	@Nullable Target target(String name, String key, boolean clientAddress) {
		RateLimitRule rule = this.rules.find(name);
		if (rule == null) {
			return null;
		}
		String value = (rule.key() instanceof RuleKey.ClientAddress || clientAddress) ? address(key) : key;
		return new Target(rule, value, clientAddress ? rule.budgetId(null, value) : rule.budgetId(value, value));
	}

	record Target(RateLimitRule rule, String key, String budgetId) {
	}

	/**
	 * Returns an address as budgets name it: in the form requests are charged under, an IPv6 address as its
	 * network ({@code 2001:db8::1} is {@code 2001:db8::/56}, and so is the network's own text).
	 */
	private String address(String value) {
		InetAddress address = CidrBlock.parseAddress(value);
		return this.addresses.budgetAddress((address != null) ? address.getHostAddress() : value);
	}

}
