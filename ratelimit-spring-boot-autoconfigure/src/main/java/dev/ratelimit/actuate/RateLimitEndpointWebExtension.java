package dev.ratelimit.actuate;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.actuate.RateLimitDescriptors.BlockDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.OverrideDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.OverrideRemovedDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.ReloadDescriptor;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP statuses of the {@link RateLimitEndpoint}'s write operations, as Spring Boot's
 * {@code CachesEndpointWebExtension} gives its endpoint's: a reload of invalid rules, a block or an override that
 * cannot be made answer 400, an unknown rule or action 404, and so does the removal of an override there is not. Every other operation is the endpoint's own.
 *
 * @since 0.1.0
 */
@EndpointWebExtension(endpoint = RateLimitEndpoint.class)
public final class RateLimitEndpointWebExtension {

	private final RateLimitEndpoint endpoint;

	/**
	 * Creates the extension of an endpoint.
	 * @param endpoint the endpoint
	 */
	public RateLimitEndpointWebExtension(RateLimitEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/**
	 * Reloads the rules ({@code POST /actuator/ratelimit/reload}), as {@link RateLimitEndpoint#reload} does.
	 * @param action {@code reload}
	 * @return the rules now in force (200), the error (400), or 404 for another action or when the rules
	 * cannot be reloaded
	 */
	@WriteOperation
	public WebEndpointResponse<ReloadDescriptor> reload(@Selector String action) {
		ReloadDescriptor reloaded = this.endpoint.reload(action);
		if (reloaded == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(reloaded,
				reloaded.reloaded() ? WebEndpointResponse.STATUS_OK : WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	/**
	 * Blocks a key under a rule by hand, or sets a key's override, as {@link RateLimitEndpoint#write} does.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to, then {@code override} for an override
	 * @param duration how long, such as {@code 30m}; required for a block, without it an override lasts until removed
	 * @param limit an override's permits per window, with {@code window}
	 * @param window an override's window, such as {@code 1m}
	 * @param burst an override's burst, for the token bucket and GCRA
	 * @param limits an override's limits, instead of {@code limit} and {@code window}
	 * @param clientAddress whether the key is a client address a rule with another key charges requests
	 * without the key's value to
	 * @return the block or the override (200); 400 when it cannot be made (the body's error names the field and the
	 * fix); 404 when no rule has that name
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> write(@Selector String rule,
			@Selector(match = Match.ALL_REMAINING) String[] key, @Nullable String duration, @Nullable String limit,
			@Nullable String window, @Nullable String burst, @Nullable List<Object> limits,
			@Nullable Boolean clientAddress) {
		OperationResponseBody written = this.endpoint.write(rule, key, duration, limit, window, burst, limits,
				clientAddress);
		if (written == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		boolean made = (written instanceof BlockDescriptor block) ? block.blocked()
				: !(written instanceof OverrideDescriptor override) || override.error() == null;
		return new WebEndpointResponse<>(written, made ? WebEndpointResponse.STATUS_OK : WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	/**
	 * Resets a key, or removes a key's override, as {@link RateLimitEndpoint#delete} does.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to, then {@code override} for an override
	 * @param clientAddress whether the key is a client address whose budget a rule with another key
	 * charges requests without the key's value to
	 * @return what was reset or removed (200); 404 when no rule has that name, or the key had no override to remove
	 */
	@DeleteOperation
	public WebEndpointResponse<OperationResponseBody> delete(@Selector String rule,
			@Selector(match = Match.ALL_REMAINING) String[] key, @Nullable Boolean clientAddress) {
		OperationResponseBody deleted = this.endpoint.delete(rule, key, clientAddress);
		if (deleted == null || (deleted instanceof OverrideRemovedDescriptor removed && !removed.removed())) {
			return new WebEndpointResponse<>(deleted, WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(deleted, WebEndpointResponse.STATUS_OK);
	}

}
