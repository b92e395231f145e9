package dev.ratelimit.grpc;

import dev.ratelimit.RateLimited;

/**
 * A bean whose method is limited by its annotation, keyed by the API key of the gRPC call it is made in.
 */
public class LimitedSender {

	@RateLimited(key = "header:x-api-key", limit = 1, window = "1m")
	public String send(String message) {
		return "sent " + message;
	}

}
