package dev.ratelimit.web;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;

import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;

/**
 * Every rule in force, from properties and from {@link dev.ratelimit.RateLimited} handlers, with the
 * limiter that decides each: the one source that the web stacks, the actuator endpoint and the metrics
 * read. Answers which rules apply to a request from its method, path and handler; knows no servlet or
 * reactive type.
 */
public final class RateLimitRules {

	private static final Log logger = LogFactory.getLog(RateLimitRules.class);

	private final List<RateLimitRule> pathRules;

	private final RateLimitRuleFactory factory;

	private final Map<Algorithm, RateLimiter> limiters;

	private final ConcurrentMap<HandlerKey, List<RateLimitRule>> handlerRules = new ConcurrentHashMap<>();

	private final ConcurrentMap<String, String> sources = new ConcurrentHashMap<>();

	private final List<RateLimitRule> all = new CopyOnWriteArrayList<>();

	private volatile boolean anyHandlerRules;

	/**
	 * Creates the registry.
	 * @param pathRules the rules that apply by path and method, from properties
	 * @param factory builds the rules of annotated handlers
	 * @param limiters the limiter of each algorithm
	 * @throws InvalidRateLimitRuleException when two rules share a name or a rule's algorithm has no
	 * limiter
	 */
	public RateLimitRules(List<RateLimitRule> pathRules, RateLimitRuleFactory factory,
			Map<Algorithm, ? extends RateLimiter> limiters) {
		this.pathRules = List.copyOf(pathRules);
		this.factory = factory;
		this.limiters = Map.copyOf(limiters);
		this.pathRules.forEach(this::register);
	}

	/**
	 * Returns the rules to apply to a request before anything else sees it, security included: the
	 * rules from properties whose paths and methods match it, but those keyed by {@code principal}.
	 * @param method the HTTP method
	 * @param path the path within the application
	 * @return the rules, in the order they are checked
	 */
	public List<RateLimitRule> matchBeforeAuthentication(String method, PathContainer path) {
		return matchPathRules(method, path, false, List.of());
	}

	/**
	 * Returns the rules to apply to a request once it is authenticated and its handler is known: the
	 * rules from properties keyed by {@code principal} whose paths and methods match it, then those of
	 * its handler's annotations.
	 * @param method the HTTP method
	 * @param path the path within the application
	 * @param handler the handler method, or {@code null} when the handler is not a method
	 * @return the rules, in the order they are checked
	 */
	public List<RateLimitRule> matchAfterAuthentication(String method, PathContainer path,
			@Nullable HandlerMethod handler) {
		return matchPathRules(method, path, true, (handler != null) ? forHandler(handler) : List.of());
	}

	private List<RateLimitRule> matchPathRules(String method, PathContainer path, boolean principal,
			List<RateLimitRule> handlerRules) {
		if (this.pathRules.isEmpty()) {
			return handlerRules;
		}
		List<RateLimitRule> applicable = new ArrayList<>(handlerRules.size() + 1);
		for (RateLimitRule rule : this.pathRules) {
			if (rule.needsAuthentication() == principal && rule.matches(path, method)) {
				applicable.add(rule);
			}
		}
		applicable.addAll(handlerRules);
		return applicable;
	}

	/**
	 * Builds, checks and registers the rules of a handler's {@link dev.ratelimit.RateLimited}
	 * annotations, once per handler; called for every handler at startup so that a bad annotation stops
	 * the application from starting.
	 * @param handler the handler method
	 * @return the handler's rules
	 * @throws InvalidRateLimitRuleException when an annotation is invalid
	 */
	public List<RateLimitRule> forHandler(HandlerMethod handler) {
		return this.handlerRules.computeIfAbsent(new HandlerKey(handler.getMethod(), handler.getBeanType()),
				(key) -> {
					List<RateLimitRule> built = this.factory.forHandler(key.method(), key.beanType());
					built.forEach(this::register);
					if (!built.isEmpty()) {
						this.anyHandlerRules = true;
					}
					return List.copyOf(built);
				});
	}

	/**
	 * Returns whether a handler has rules of its own, so that a web stack need not look a request's
	 * handler up when none has.
	 * @return {@code true} once the rules of an annotated handler were built
	 */
	public boolean hasHandlerRules() {
		return this.anyHandlerRules;
	}

	/**
	 * Returns the rules that apply by path and method.
	 * @return the rules from properties
	 */
	public List<RateLimitRule> pathRules() {
		return this.pathRules;
	}

	/**
	 * Returns every rule in force: those from properties, then those of annotated handlers.
	 * @return the rules
	 */
	public List<RateLimitRule> all() {
		return List.copyOf(this.all);
	}

	/**
	 * Returns the rule of a name.
	 * @param name the name
	 * @return the rule, or {@code null} when none has it
	 */
	public @Nullable RateLimitRule find(String name) {
		for (RateLimitRule rule : this.all) {
			if (rule.name().equals(name)) {
				return rule;
			}
		}
		return null;
	}

	/**
	 * Returns the limiter that decides for a rule.
	 * @param rule the rule
	 * @return the limiter of its algorithm
	 */
	public RateLimiter limiter(RateLimitRule rule) {
		return this.limiters.get(rule.algorithm());
	}

	private void register(RateLimitRule rule) {
		String existing = this.sources.putIfAbsent(rule.name(), rule.source());
		if (existing != null && !existing.equals(rule.source())) {
			throw new InvalidRateLimitRuleException(rule.name() + " (" + rule.source() + ")", "name", rule.name(),
					"it is already the name of the rule of " + existing
							+ "; rules never share a budget, so give each its own name");
		}
		if (!this.limiters.containsKey(rule.algorithm())) {
			throw new InvalidRateLimitRuleException(rule.name(), "algorithm", rule.algorithm().id(),
					"no RateLimiter bean implements it; the limiters need a RedisConnectionFactory "
							+ "(add spring-boot-starter-data-redis and set spring.data.redis.*) or declare a "
							+ "RateLimiter bean for this algorithm");
		}
		if (existing == null) {
			this.all.add(rule);
			logger.info(rule.describe());
		}
	}

	private record HandlerKey(Method method, Class<?> beanType) {
	}

}
