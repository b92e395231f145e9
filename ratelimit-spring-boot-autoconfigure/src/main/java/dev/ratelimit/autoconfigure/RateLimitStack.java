package dev.ratelimit.autoconfigure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * What a technology's auto-configuration tells the engine's of itself, as a bean: that the application serves calls
 * the rules of {@code ratelimit.rules.*} apply to (web requests, gRPC calls), and, for a web stack, the types of its
 * key-resolver and condition beans ({@code key=bean:<name>}, {@code condition=<name>}). The engine's auto-configuration
 * knows no technology: an application without any leaves the rules of {@code ratelimit.rules.*} out (and says so),
 * and one without a web stack has no key-resolver or condition beans.
 *
 * @param name the technology, for messages
 * @param keyResolverType the type of its key-resolver beans, or {@code null} when it has none
 * @param conditionType the type of its condition beans, or {@code null} when it has none
 * @param mappedPaths the paths its calls come by that no web stack's handler mappings list (gRPC methods), read once
 * the application has started, for the warning of rules whose paths nothing maps
 * @since 0.1.0
 */
public record RateLimitStack(String name, @Nullable Class<?> keyResolverType, @Nullable Class<?> conditionType,
		Supplier<Collection<String>> mappedPaths) {

	/**
	 * The name of gRPC's stack: where it is present, the servlet filter leaves the requests of gRPC hosted in the
	 * servlet container to the gRPC interceptors, which answer in gRPC.
	 */
	public static final String GRPC = "gRPC";

	/**
	 * Returns a web stack, whose rules may name key-resolver and condition beans.
	 * @param name the stack, such as {@code servlet}
	 * @param keyResolverType the type of its key-resolver beans
	 * @param conditionType the type of its condition beans
	 * @return the stack
	 */
	public static RateLimitStack web(String name, Class<?> keyResolverType, Class<?> conditionType) {
		return new RateLimitStack(name, keyResolverType, conditionType, List::of);
	}

	/**
	 * Returns a technology whose calls the rules apply to without beans of its own (gRPC).
	 * @param name the technology
	 * @param mappedPaths the paths of its calls, which rules match as they match request paths
	 * @return the stack
	 */
	public static RateLimitStack calls(String name, Supplier<Collection<String>> mappedPaths) {
		return new RateLimitStack(name, null, null, mappedPaths);
	}

	/**
	 * Returns the paths every technology of an application maps besides the web stacks' handler mappings.
	 * @param stacks the technologies
	 * @return the paths
	 */
	public static List<String> otherMappedPaths(Iterable<RateLimitStack> stacks) {
		List<String> paths = new ArrayList<>();
		stacks.forEach((stack) -> paths.addAll(stack.mappedPaths().get()));
		return paths;
	}

}
