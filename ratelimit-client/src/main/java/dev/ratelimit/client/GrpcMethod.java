package dev.ratelimit.client;

import org.jspecify.annotations.Nullable;

/**
 * A gRPC call out as the partners' patterns compare it: its full method name ({@code shop.Inventory/GetItem}) and,
 * when the interceptor was made for one, the name of its channel as Spring gRPC's channel factory names it.
 * @param channel the channel's name, {@code null} when the interceptor knows none
 * @param fullMethodName the service's full name, {@code /} and the method's name
 */
record GrpcMethod(@Nullable String channel, String fullMethodName) implements PartnerCall {

	/**
	 * Returns the service's full name.
	 * @return such as {@code shop.Inventory}
	 */
	String service() {
		int slash = this.fullMethodName.lastIndexOf('/');
		return (slash < 0) ? this.fullMethodName : this.fullMethodName.substring(0, slash);
	}

	/**
	 * Returns the method's name.
	 * @return such as {@code GetItem}
	 */
	String method() {
		return this.fullMethodName.substring(this.fullMethodName.lastIndexOf('/') + 1);
	}

	@Override
	public String describe() {
		return "gRPC call " + this.fullMethodName + ((this.channel != null) ? " on channel '" + this.channel + "'" : "");
	}

}
