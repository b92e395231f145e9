package dev.ratelimit.autoconfigure.openapi;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import org.jspecify.annotations.Nullable;
import org.springdoc.core.customizers.GlobalOpenApiCustomizer;
import org.springdoc.core.customizers.GlobalOperationCustomizer;

import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;

/**
 * Finds the rules that limit each operation of springdoc's document, with the engine's own matching, and has
 * {@link LimitedOperations} document them. springdoc shows each handler to the operation customizer, which knows no
 * path, then the whole document to the document customizer: the first marks an operation with its handler's
 * {@code @RateLimited} rules (an extension the second removes), the second adds the rules from properties that match
 * the operation's path and method, in both of the engine's turns.
 */
final class RateLimitOpenApiCustomizer implements GlobalOperationCustomizer, GlobalOpenApiCustomizer {

	/** The extension that carries a handler's rule names from one customizer to the other; never in the document. */
	static final String HANDLER_RULES = "x-ratelimit-handler-rules";

	private final RateLimitRuleRegistry rules;

	private final LimitedOperations documentation;

	RateLimitOpenApiCustomizer(RateLimitRuleRegistry rules, LimitedOperations documentation) {
		this.rules = rules;
		this.documentation = documentation;
	}

	@Override
	public Operation customize(Operation operation, HandlerMethod handler) {
		List<RateLimitRule> handlerRules = this.rules.forHandler(handler);
		if (!handlerRules.isEmpty()) {
			operation.addExtension(HANDLER_RULES, handlerRules.stream().map(RateLimitRule::name).toList());
		}
		return operation;
	}

	@Override
	public void customise(OpenAPI openApi) {
		if (openApi.getPaths() == null) {
			return;
		}
		openApi.getPaths().forEach((path, item) -> {
			Supplier<PathContainer> parsed = () -> PathContainer.parsePath(path);
			for (Map.Entry<PathItem.HttpMethod, Operation> each : item.readOperationsMap().entrySet()) {
				Operation operation = each.getValue();
				String method = each.getKey().name().toUpperCase(Locale.ROOT);
				Set<RateLimitRule> limiting = new LinkedHashSet<>(this.rules.matchBeforeAuthentication(method, parsed));
				limiting.addAll(this.rules.matchAfterAuthentication(method, parsed, null));
				limiting.addAll(handlerRules(operation));
				if (!limiting.isEmpty()) {
					this.documentation.document(openApi, operation, List.copyOf(limiting));
				}
			}
		});
	}

	/** The rules the operation customizer found on the operation's handler, its mark removed. */
	private List<RateLimitRule> handlerRules(Operation operation) {
		Map<String, Object> extensions = operation.getExtensions();
		@Nullable Object names = (extensions != null) ? extensions.remove(HANDLER_RULES) : null;
		if (extensions != null && extensions.isEmpty()) {
			operation.setExtensions(null);
		}
		List<RateLimitRule> found = new ArrayList<>();
		if (names instanceof List<?> list) {
			for (Object name : list) {
				RateLimitRule rule = this.rules.find(String.valueOf(name));
				if (rule != null) {
					found.add(rule);
				}
			}
		}
		return found;
	}

}
