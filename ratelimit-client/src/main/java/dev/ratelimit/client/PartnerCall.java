package dev.ratelimit.client;

/**
 * A call out as the partners' patterns compare it: an HTTP call's URL ({@link PartnerUrl}) or a gRPC call's method
 * and channel ({@link GrpcMethod}), each normalised once.
 */
sealed interface PartnerCall permits PartnerUrl, GrpcMethod {

	/**
	 * Describes the call for messages.
	 * @return such as {@code call to https://api.partner.example:443/v1}
	 */
	String describe();

}
