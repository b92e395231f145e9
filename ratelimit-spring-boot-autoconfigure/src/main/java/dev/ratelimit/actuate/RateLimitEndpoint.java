package dev.ratelimit.actuate;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.CircuitBreaker;
import dev.ratelimit.FailureMode;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitDecision;
import dev.ratelimit.web.servlet.CidrBlock;
import dev.ratelimit.web.servlet.RateLimitInterceptor;
import dev.ratelimit.web.servlet.RateLimitRule;
import dev.ratelimit.web.servlet.RateLimitRuleFactory;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

/**
 * The {@code ratelimit} actuator endpoint: the rules in force; one key's state under a rule, read
 * without charging it; and a reset of one key, for support staff unblocking a customer. The key is the
 * value the rule's key resolves to: a client address for {@code ip}, the header's value for
 * {@code header:<Name>}, and so on.
 */
@Endpoint(id = "ratelimit")
public class RateLimitEndpoint {

	private final RateLimitInterceptor interceptor;

	private final FailureMode failureMode;

	private final @Nullable CircuitBreaker circuitBreaker;

	/**
	 * Creates the endpoint.
	 * @param interceptor holds the rules and their limiters
	 * @param failureMode the failure mode in force
	 * @param circuitBreaker the breaker guarding Redis, or {@code null}
	 */
	public RateLimitEndpoint(RateLimitInterceptor interceptor, FailureMode failureMode,
			@Nullable CircuitBreaker circuitBreaker) {
		this.interceptor = interceptor;
		this.failureMode = failureMode;
		this.circuitBreaker = circuitBreaker;
	}

	/**
	 * Returns the rules in force and how failures are handled.
	 * @return the description
	 */
	@ReadOperation
	public Map<String, Object> rules() {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("failureMode", name(this.failureMode.name()));
		body.put("redis", (this.circuitBreaker != null) ? name(this.circuitBreaker.state().name()) : "unknown");
		List<Map<String, Object>> rules = new ArrayList<>();
		for (RateLimitRule rule : this.interceptor.getAllRules()) {
			Map<String, Object> described = new LinkedHashMap<>();
			described.put("name", rule.name());
			described.put("source", rule.source());
			described.put("paths", rule.paths().stream().map((path) -> path.getPatternString()).toList());
			described.put("methods", rule.methods().stream().sorted().toList());
			described.put("algorithm", RateLimitRuleFactory.algorithmName(rule.algorithm()));
			described.put("key", rule.key());
			described.put("cost", rule.cost());
			described.put("shadow", rule.shadow());
			List<Map<String, Object>> limits = new ArrayList<>();
			for (int i = 0; i < rule.limits().size(); i++) {
				RateLimit limit = rule.limits().get(i);
				Map<String, Object> policy = new LinkedHashMap<>();
				policy.put("policy", rule.policyName(i));
				policy.put("limit", limit.limit());
				policy.put("window", limit.windowLabel());
				policy.put("burst", limit.burst());
				limits.add(policy);
			}
			described.put("limits", limits);
			rules.add(described);
		}
		body.put("rules", rules);
		return body;
	}

	/**
	 * Returns a key's state under a rule without charging it.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @return the state per limit, or {@code null} (404) when no rule has that name
	 */
	@ReadOperation
	public @Nullable Map<String, Object> key(@Selector String rule, @Selector(match = Match.ALL_REMAINING) String[] key) {
		RateLimitRule found = find(rule);
		if (found == null) {
			return null;
		}
		String value = value(found, key);
		List<RateLimitDecision> decisions = this.interceptor.limiterFor(found.algorithm())
			.inspect(found.budgetId(value, value), found.limits());
		List<Map<String, Object>> limits = new ArrayList<>();
		for (int i = 0; i < decisions.size(); i++) {
			RateLimitDecision decision = decisions.get(i);
			Map<String, Object> state = new LinkedHashMap<>();
			state.put("policy", found.policyName(i));
			state.put("limit", decision.limit());
			state.put("remaining", decision.remaining());
			state.put("allowed", decision.allowed());
			state.put("retryAfterSeconds", seconds(decision.retryAfter()));
			state.put("resetAfterSeconds", seconds(decision.resetAfter()));
			limits.add(state);
		}
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("rule", found.name());
		body.put("key", value);
		body.put("limits", limits);
		return body;
	}

	/**
	 * Puts a key back to full under a rule.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @return what was reset, or {@code null} (404) when no rule has that name
	 */
	@DeleteOperation
	public @Nullable Map<String, Object> reset(@Selector String rule, @Selector(match = Match.ALL_REMAINING) String[] key) {
		RateLimitRule found = find(rule);
		if (found == null) {
			return null;
		}
		String value = value(found, key);
		long deleted = this.interceptor.limiterFor(found.algorithm())
			.reset(found.budgetId(value, value), found.limits());
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("rule", found.name());
		body.put("key", value);
		body.put("reset", true);
		body.put("deletedEntries", deleted);
		return body;
	}

	/**
	 * Returns the key as the rule stores it: the rest of the path (a key may hold slashes), and for an
	 * {@code ip} rule the address in the form the interceptor writes ({@code 2001:db8::1} becomes
	 * {@code 2001:db8:0:0:0:0:0:1}).
	 */
	private static String value(RateLimitRule rule, String[] segments) {
		String value = String.join("/", segments);
		if (rule.keyKind().equals("ip")) {
			InetAddress address = CidrBlock.parseAddress(value);
			if (address != null) {
				return address.getHostAddress();
			}
		}
		return value;
	}

	private @Nullable RateLimitRule find(String name) {
		for (RateLimitRule rule : this.interceptor.getAllRules()) {
			if (rule.name().equals(name)) {
				return rule;
			}
		}
		return null;
	}

	private static long seconds(Duration duration) {
		return (duration.getNano() > 0) ? duration.getSeconds() + 1 : duration.getSeconds();
	}

	private static String name(String constant) {
		return constant.toLowerCase(java.util.Locale.ROOT).replace('_', '-');
	}

}
