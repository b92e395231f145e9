package dev.ratelimit.autoconfigure.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.Algorithm;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The partner calls' part of the rate limiter's properties ({@code ratelimit.clients.*}), bound beside the common
 * part under the same prefix.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("ratelimit")
public class RateLimitClientProperties {

	/**
	 * The limits of partners this application calls, by name; each applies to the calls of the RestClient,
	 * WebClient and HTTP interface clients built from Spring Boot's builders whose URLs it covers, and to the calls
	 * of Spring gRPC's channels whose services or channels it names.
	 */
	private Map<String, Client> clients = new LinkedHashMap<>();

	public Map<String, Client> getClients() {
		return this.clients;
	}

	public void setClients(Map<String, Client> clients) {
		this.clients = clients;
	}

	/**
	 * A partner's limit on the calls this application makes to it, shared by every instance.
	 */
	public static class Client {

		/**
		 * Permits per window.
		 */
		private @Nullable Long limit;

		/**
		 * Length of the window.
		 */
		private @Nullable Duration window;

		/**
		 * For token-bucket and gcra, how many permits may be taken at once; the limit when not set.
		 */
		private @Nullable Long burst;

		/**
		 * Several limits, all charged or none, instead of limit, window and burst.
		 */
		private List<Limit> limits = new ArrayList<>();

		/**
		 * The algorithm; ratelimit.default-algorithm when not set.
		 */
		private @Nullable Algorithm algorithm;

		/**
		 * The calls the limit covers: URL patterns such as https://api.partner.example/** (scheme, host and port,
		 * and a Spring path pattern; a host may start with *. for its subdomains).
		 */
		private List<String> urls = new ArrayList<>();

		/**
		 * The gRPC calls the limit covers: services or methods such as shop.Inventory, shop.Inventory/Get* or shop.*
		 * (every service of a package), on the channels of Spring gRPC's channel factory.
		 */
		private List<String> grpcServices = new ArrayList<>();

		/**
		 * The gRPC channels whose every call the limit covers, by the name Spring gRPC's channel factory gives them
		 * (spring.grpc.client.channel.<name>).
		 */
		private List<String> grpcChannels = new ArrayList<>();

		/**
		 * How long a call may wait for a permit before it fails with RateLimitExceededException; 0 fails at once.
		 */
		private Duration maxWait = Duration.ZERO;

		/**
		 * Whether a 429 or 503 with Retry-After, or a RateLimit header with r=0, from the partner blocks the budget
		 * on every instance for as long as the partner says.
		 */
		private boolean learnFromResponses = true;

		/**
		 * The longest block a partner's answer starts: a Retry-After of days, from the partner or a proxy in between,
		 * blocks the budget this long (and is logged).
		 */
		private Duration maxLearnedBlock = Duration.ofHours(1);

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getWindow() {
			return this.window;
		}

		public void setWindow(@Nullable Duration window) {
			this.window = window;
		}

		public @Nullable Long getBurst() {
			return this.burst;
		}

		public void setBurst(@Nullable Long burst) {
			this.burst = burst;
		}

		public List<Limit> getLimits() {
			return this.limits;
		}

		public void setLimits(List<Limit> limits) {
			this.limits = limits;
		}

		public @Nullable Algorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(@Nullable Algorithm algorithm) {
			this.algorithm = algorithm;
		}

		public List<String> getUrls() {
			return this.urls;
		}

		public void setUrls(List<String> urls) {
			this.urls = urls;
		}

		public List<String> getGrpcServices() {
			return this.grpcServices;
		}

		public void setGrpcServices(List<String> grpcServices) {
			this.grpcServices = grpcServices;
		}

		public List<String> getGrpcChannels() {
			return this.grpcChannels;
		}

		public void setGrpcChannels(List<String> grpcChannels) {
			this.grpcChannels = grpcChannels;
		}

		public Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(Duration maxWait) {
			this.maxWait = maxWait;
		}

		public boolean isLearnFromResponses() {
			return this.learnFromResponses;
		}

		public void setLearnFromResponses(boolean learnFromResponses) {
			this.learnFromResponses = learnFromResponses;
		}

		public Duration getMaxLearnedBlock() {
			return this.maxLearnedBlock;
		}

		public void setMaxLearnedBlock(Duration maxLearnedBlock) {
			this.maxLearnedBlock = maxLearnedBlock;
		}

	}

	/**
	 * One limit of a partner's budget.
	 */
	public static class Limit {

		/**
		 * Permits per window.
		 */
		private @Nullable Long limit;

		/**
		 * Length of the window.
		 */
		private @Nullable Duration window;

		/**
		 * For token-bucket and gcra, how many permits may be taken at once; the limit when not set.
		 */
		private @Nullable Long burst;

		public @Nullable Long getLimit() {
			return this.limit;
		}

		public void setLimit(@Nullable Long limit) {
			this.limit = limit;
		}

		public @Nullable Duration getWindow() {
			return this.window;
		}

		public void setWindow(@Nullable Duration window) {
			this.window = window;
		}

		public @Nullable Long getBurst() {
			return this.burst;
		}

		public void setBurst(@Nullable Long burst) {
			this.burst = burst;
		}

	}

}
