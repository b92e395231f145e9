package dev.ratelimit.client;

/**
 * The gRPC calls of a channel, by the name Spring gRPC's channel factory gives it (the name passed to
 * {@code GrpcChannelFactory.createChannel}, such as {@code inventory} or {@code static://localhost:9090}).
 * @param name the channel's name, compared as written
 */
record GrpcChannelPattern(String name) implements CallPattern {

	/**
	 * Parses a channel's name.
	 * @param spelling the name
	 * @return the pattern
	 * @throws IllegalArgumentException when it is blank
	 */
	static GrpcChannelPattern parse(String spelling) {
		String name = spelling.strip();
		if (name.isEmpty()) {
			throw new IllegalArgumentException("give the name of a channel, as Spring gRPC names it (the name of "
					+ "spring.grpc.client.channel.<name>, or the target passed to GrpcChannelFactory.createChannel)");
		}
		return new GrpcChannelPattern(name);
	}

	@Override
	public boolean matches(PartnerCall call) {
		return call instanceof GrpcMethod method && this.name.equals(method.channel());
	}

	@Override
	public String toString() {
		return this.name;
	}

}
