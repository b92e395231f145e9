package dev.ratelimit.actuate;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.actuate.RateLimitDescriptors.BlockDescriptor;
import dev.ratelimit.actuate.RateLimitDescriptors.ReloadDescriptor;

import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP statuses of the {@link RateLimitEndpoint}'s write operations, as Spring Boot's
 * {@code CachesEndpointWebExtension} gives its endpoint's: a reload of invalid rules and a block that
 * cannot be made answer 400, an unknown rule or action 404. Every other operation is the endpoint's own.
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
	 * Blocks a key under a rule by hand, as {@link RateLimitEndpoint#block} does.
	 * @param rule the rule's name
	 * @param key the value the rule's key resolves to
	 * @param duration how long, such as {@code 30m} or {@code PT30M}
	 * @param clientAddress whether the key is a client address a rule with another key charges requests
	 * without the key's value to
	 * @return the block (200); 400 when the duration is invalid or the rule blocks no key; 404 when no
	 * rule has that name
	 */
	@WriteOperation
	public WebEndpointResponse<BlockDescriptor> block(@Selector String rule,
			@Selector(match = Match.ALL_REMAINING) String[] key, String duration, @Nullable Boolean clientAddress) {
		BlockDescriptor block = this.endpoint.block(rule, key, duration, clientAddress);
		if (block == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(block,
				block.blocked() ? WebEndpointResponse.STATUS_OK : WebEndpointResponse.STATUS_BAD_REQUEST);
	}

}
