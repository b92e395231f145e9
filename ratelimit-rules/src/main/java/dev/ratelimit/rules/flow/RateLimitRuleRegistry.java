package dev.ratelimit.rules.flow;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.rules.CidrBlock;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.MethodLimits;
import dev.ratelimit.rules.RateLimitRule;

/**
 * The rules an application runs under, as an entry point that picks its own rules asks for them: those that match a
 * call by method and path (gRPC, whose calls are limited message by message), those of a {@link dev.ratelimit.RateLimited}
 * handler or bean method, and those an entry point applies by itself (the budget of a partner); and, for the
 * auto-configuration and the actuator endpoint, every rule in force, the address lists, and the reload of the rules
 * from properties. The engine implements it (built by {@code RateLimitEngine.builder()}); a reload shows in every
 * answer after it.
 *
 * @since 0.1.0
 */
public interface RateLimitRuleRegistry {

	/**
	 * Returns the rules to apply to a call before anything else sees it, security included: the rules from
	 * properties whose paths and methods match it, but those keyed by {@code principal}.
	 * @param method the call's method
	 * @param path the call's path, asked only when a rule has paths to match
	 * @return the rules, in the order they are checked
	 */
	List<RateLimitRule> matchBeforeAuthentication(String method, Supplier<PathContainer> path);

	/**
	 * Returns the rules to apply to a call once it is authenticated and its handler is known: the rules from properties
	 * keyed by {@code principal} whose paths and methods match it, then those of its handler's annotations.
	 * @param method the call's method
	 * @param path the call's path, asked only when a rule has paths to match
	 * @param handler the handler method, or {@code null} when the handler is not a method
	 * @return the rules, in the order they are checked
	 */
	List<RateLimitRule> matchAfterAuthentication(String method, Supplier<PathContainer> path,
			@Nullable HandlerMethod handler);

	/**
	 * Returns whether a {@link dev.ratelimit.RateLimited} bean method has a rule whose key or plan the request it is
	 * called in gives, so that an entry point need not make every request reachable from such calls otherwise.
	 * @return {@code true} once such a method's rules were built
	 */
	boolean methodRulesReadRequests();

	/**
	 * Builds, checks and registers the limits of a {@link dev.ratelimit.RateLimited} method of a bean, once per method.
	 * @param method the method
	 * @param beanType the class of the bean
	 * @return the method's limits, {@link MethodLimits#NONE} when it has none
	 * @throws InvalidRateLimitRuleException when an annotation is invalid
	 */
	MethodLimits forBeanMethod(Method method, Class<?> beanType);

	/**
	 * Checks and registers a rule that an entry point applies by itself (the budget of a partner this application
	 * calls): it is listed with the others (the endpoint, the metrics) but never matched to a request.
	 * @param rule the rule
	 * @throws InvalidRateLimitRuleException when another rule has its name or its algorithm has no limiter
	 */
	void registerAttached(RateLimitRule rule);

	/**
	 * Returns the limiter that decides for a rule.
	 * @param rule the rule
	 * @return the limiter of its algorithm
	 */
	RateLimiter limiter(RateLimitRule rule);

	/**
	 * Builds, checks and registers the rules of a handler's {@link dev.ratelimit.RateLimited} annotations, once per
	 * handler; a web stack calls it for every handler at startup, so that a bad annotation stops the application.
	 * @param handler the handler method
	 * @return the handler's rules
	 * @throws InvalidRateLimitRuleException when an annotation is invalid
	 */
	List<RateLimitRule> forHandler(HandlerMethod handler);

	/**
	 * Returns every rule in force: those from properties, then those of annotated handlers and bean methods and those
	 * entry points registered.
	 * @return the rules
	 */
	List<RateLimitRule> all();

	/**
	 * Returns the rules from properties, which apply by path and method.
	 * @return the rules
	 */
	List<RateLimitRule> pathRules();

	/**
	 * Returns the rule of a name.
	 * @param name the name
	 * @return the rule, or {@code null} when none has it
	 */
	@Nullable RateLimitRule find(String name);

	/**
	 * Returns the client addresses whose calls skip every rule.
	 * @return the blocks, empty when none
	 */
	List<CidrBlock> allowedAddresses();

	/**
	 * Returns the client addresses whose calls are refused before any rule.
	 * @return the blocks, empty when none
	 */
	List<CidrBlock> deniedAddresses();

	/**
	 * Replaces the rules from properties and the address lists at once, for new calls, after checking the new rules
	 * as at startup; on an error nothing changes. The rules of annotations and those entry points registered stay, and
	 * so do budgets: a rule's budgets are keyed by its name and key, whatever its limits.
	 * @param pathRules the new rules that apply by path and method
	 * @param allow the new blocks whose calls skip every rule
	 * @param deny the new blocks whose calls are refused before any rule
	 * @throws InvalidRateLimitRuleException when two rules share a name or a rule's algorithm has no limiter
	 */
	void replace(List<RateLimitRule> pathRules, List<CidrBlock> allow, List<CidrBlock> deny);

	/**
	 * Warns, once, of each rule from properties none of whose path patterns matches a path the application maps: such
	 * a rule still applies (filters, static resources or another servlet may serve its paths), but it is more often a
	 * typo. Each stack's auto-configuration hands over the patterns its handlers and routes map.
	 * @param mappedPatterns the path patterns the application's handlers map
	 * @return the rules warned of
	 */
	List<RateLimitRule> warnOfUnmappedRules(Collection<String> mappedPatterns);

}
