package dev.ratelimit.client;

/**
 * What partner budgets count: calls that waited for a permit, calls that gave up because the wait would pass
 * {@code max-wait}, and the partner's answers that blocked a budget.
 */
interface ClientMetrics {

	/** Counts nothing. */
	ClientMetrics NONE = new ClientMetrics() {

		@Override
		public void waited(String client) {
		}

		@Override
		public void gaveUp(String client) {
		}

		@Override
		public void partnerRefused(String client, String status) {
		}

	};

	/**
	 * Counts a wait for a permit.
	 * @param client the partner's name
	 */
	void waited(String client);

	/**
	 * Counts a call that failed because its permit would come after {@code max-wait}.
	 * @param client the partner's name
	 */
	void gaveUp(String client);

	/**
	 * Counts an answer of the partner that blocked the budget.
	 * @param client the partner's name
	 * @param status the answer's status: an HTTP status code, or a gRPC status's name
	 */
	void partnerRefused(String client, String status);

}
