package dev.ratelimit.rules.flow;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;

import dev.ratelimit.rules.ResponseCost;

/**
 * How a call the flow let through ended, as its entry point tells the flow with {@link RateLimitFlow#end}: the engine
 * settles what the call took accordingly (slots given back whatever the end; {@code count-statuses} charges kept or
 * given back by the outcome; {@code cost-from} reservations adjusted to the actual costs; what a call refused later
 * reserved given back). An entry point only says how its call ended, never how to settle it.
 *
 * @since 0.1.0
 */
public sealed interface CallEnd {

	/**
	 * A call that completed with an HTTP status.
	 * @param status the final status
	 * @param costs the actual costs it tells ({@link ResponseCost.Actual#NONE} when none: reservations stand)
	 * @return the end
	 */
	static CallEnd completed(int status, ResponseCost.Actual costs) {
		return new Completed(status, costs);
	}

	/**
	 * A gRPC call that closed with a status: an outcome of its own, which rules that count statuses read as the HTTP
	 * status a gRPC gateway answers for it (OK 200, INVALID_ARGUMENT 400, RESOURCE_EXHAUSTED 429, UNAVAILABLE 503, ...).
	 * @param code the status code's value, as {@code io.grpc.Status.Code.value()} gives it
	 * @return the end
	 */
	static CallEnd grpc(int code) {
		return new GrpcClosed(code);
	}

	/**
	 * A call answered with a status whose headers may still be written (a reactive response about to be committed):
	 * the actual costs of {@code cost-from} rules are read from them, and a rule's header is removed unless it
	 * exposes it ({@code cost-from-expose}).
	 * @param status the answer's status
	 * @param headers the answer's headers, still writable
	 * @return the end
	 */
	static CallEnd answered(int status, HttpHeaders headers) {
		return new Answered(status, headers, false);
	}

	/**
	 * A call a later stage refused (its work never ran): what an earlier stage reserved for it is given back.
	 * @param status the status of the refusal (429, or 403, 400, 503 for the other cases)
	 * @param headers the answer's headers, still writable, to remove the cost headers from; {@code null} when none
	 * @return the end
	 */
	static CallEnd refusedLater(int status, @Nullable HttpHeaders headers) {
		return (headers != null) ? new Answered(status, headers, true)
				: new Completed(status, ResponseCost.Actual.NOTHING);
	}

	/**
	 * A call abandoned before it completed (its client went away, it was cancelled): its slots are given back, its
	 * charges kept, since it has no outcome to count.
	 * @return the end
	 */
	static CallEnd abandoned() {
		return Abandoned.INSTANCE;
	}

	/**
	 * A call that completed with an HTTP status.
	 * @param status the final status
	 * @param costs the actual costs it tells
	 */
	record Completed(int status, ResponseCost.Actual costs) implements CallEnd {

	}

	/**
	 * A gRPC call that closed with a status.
	 * @param code the status code's value
	 */
	record GrpcClosed(int code) implements CallEnd {

		/**
		 * Returns the HTTP status rules that count statuses read this call's status as.
		 * @return the status
		 */
		public int httpStatus() {
			return switch (this.code) {
				case 0 -> 200;
				case 3, 9, 11 -> 400;
				case 16 -> 401;
				case 7 -> 403;
				case 5 -> 404;
				case 6, 10 -> 409;
				case 8 -> 429;
				case 1 -> 499;
				case 12 -> 501;
				case 14 -> 503;
				case 4 -> 504;
				default -> 500;
			};
		}

	}

	/**
	 * A call answered, its headers still writable.
	 * @param status the answer's status
	 * @param headers its headers
	 * @param refused whether a later stage refused it
	 */
	record Answered(int status, HttpHeaders headers, boolean refused) implements CallEnd {

	}

	/** A call abandoned before it completed. */
	enum Abandoned implements CallEnd {

		/** The one value. */
		INSTANCE

	}

}
