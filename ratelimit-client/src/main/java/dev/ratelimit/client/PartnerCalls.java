package dev.ratelimit.client;

import java.util.ArrayList;
import java.util.List;

/**
 * The calls a partner's budget covers, as written in {@code ratelimit.clients.<name>.*}: URL patterns of HTTP calls
 * ({@code urls}), gRPC services or methods ({@code grpc-services}) and gRPC channels by name
 * ({@code grpc-channels}). Immutable; each {@code with} returns a copy.
 *
 * @since 0.1.0
 */
public final class PartnerCalls {

	private final List<String> urls;

	private final List<String> grpcServices;

	private final List<String> grpcChannels;

	private PartnerCalls(List<String> urls, List<String> grpcServices, List<String> grpcChannels) {
		this.urls = List.copyOf(urls);
		this.grpcServices = List.copyOf(grpcServices);
		this.grpcChannels = List.copyOf(grpcChannels);
	}

	/**
	 * Returns the HTTP calls of some URL patterns.
	 * @param urls patterns such as {@code https://api.partner.example/**}, each valid ({@link #checkUrl})
	 * @return the calls
	 */
	public static PartnerCalls urls(List<String> urls) {
		return new PartnerCalls(urls, List.of(), List.of());
	}

	/**
	 * Returns these calls and the gRPC calls of some services or methods.
	 * @param services patterns such as {@code shop.Inventory}, {@code shop.Inventory/Get*} or {@code shop.*}, each
	 * valid ({@link #checkGrpcService})
	 * @return a copy with them
	 */
	public PartnerCalls withGrpcServices(List<String> services) {
		return new PartnerCalls(this.urls, services, this.grpcChannels);
	}

	/**
	 * Returns these calls and every gRPC call of some channels.
	 * @param channels the channels' names, as Spring gRPC's channel factory names them, each valid
	 * ({@link #checkGrpcChannel})
	 * @return a copy with them
	 */
	public PartnerCalls withGrpcChannels(List<String> channels) {
		return new PartnerCalls(this.urls, this.grpcServices, channels);
	}

	/**
	 * Returns whether no call is named.
	 * @return {@code true} without URLs, gRPC services and gRPC channels
	 */
	public boolean isEmpty() {
		return this.urls.isEmpty() && this.grpcServices.isEmpty() && this.grpcChannels.isEmpty();
	}

	/**
	 * Returns everything named, for messages.
	 * @return the URL patterns, then the gRPC services and channels
	 */
	@Override
	public String toString() {
		List<String> all = new ArrayList<>(this.urls);
		all.addAll(this.grpcServices);
		this.grpcChannels.forEach((channel) -> all.add("gRPC channel " + channel));
		return String.join(", ", all);
	}

	/**
	 * Checks a URL pattern.
	 * @param pattern the pattern, such as {@code https://api.partner.example/**}
	 * @throws IllegalArgumentException saying what is wrong and how to write it
	 */
	public static void checkUrl(String pattern) {
		UrlPattern.parse(pattern);
	}

	/**
	 * Checks a pattern of gRPC services or methods.
	 * @param pattern the pattern, such as {@code shop.Inventory/Get*}
	 * @throws IllegalArgumentException saying what is wrong and how to write it
	 */
	public static void checkGrpcService(String pattern) {
		GrpcMethodPattern.parse(pattern);
	}

	/**
	 * Checks a gRPC channel's name.
	 * @param name the name
	 * @throws IllegalArgumentException when it is blank
	 */
	public static void checkGrpcChannel(String name) {
		GrpcChannelPattern.parse(name);
	}

	/**
	 * Parses every pattern once.
	 * @return the patterns, URLs first
	 */
	List<CallPattern> patterns() {
		List<CallPattern> patterns = new ArrayList<>();
		this.urls.forEach((url) -> patterns.add(UrlPattern.parse(url)));
		this.grpcServices.forEach((service) -> patterns.add(GrpcMethodPattern.parse(service)));
		this.grpcChannels.forEach((channel) -> patterns.add(GrpcChannelPattern.parse(channel)));
		return patterns;
	}

}
