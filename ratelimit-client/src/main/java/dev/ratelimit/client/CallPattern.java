package dev.ratelimit.client;

/**
 * Some of the calls a partner's budget covers: URLs ({@link UrlPattern}), gRPC services or methods
 * ({@link GrpcMethodPattern}) or gRPC channels by name ({@link GrpcChannelPattern}).
 */
sealed interface CallPattern permits UrlPattern, GrpcMethodPattern, GrpcChannelPattern {

	/**
	 * Returns whether the pattern covers a call.
	 * @param call the call, normalised
	 * @return {@code true} when it matches; a pattern of one kind never matches a call of another
	 */
	boolean matches(PartnerCall call);

}
