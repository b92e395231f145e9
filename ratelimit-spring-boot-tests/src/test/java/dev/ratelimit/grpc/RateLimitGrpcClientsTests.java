package dev.ratelimit.grpc;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.RetryInfo;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.client.RateLimitClientInterceptor;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.grpc.client.GrpcChannelFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Partners' limits on gRPC calls out ({@code ratelimit.clients.<name>.grpc-services} and {@code grpc-channels}),
 * through the channels of Spring Boot's gRPC channel factory, against a real gRPC server on 127.0.0.1 that records
 * what it receives ({@link TestPartner}) and two application instances on a real Redis: together they never call the
 * partner more than its limit, a call waits for its permit up to {@code max-wait}, a call over the limit ends with
 * {@code RESOURCE_EXHAUSTED} on the client, and after the partner's {@code RESOURCE_EXHAUSTED} with a
 * {@code RetryInfo} no call reaches it for that long, from either instance.
 */
class RateLimitGrpcClientsTests {

	/** How long the partner asks to be left alone in {@link #afterThePartnersResourceExhaustedNoCallReachesItForItsRetryDelay}. */
	private static final Duration PARTNER_DELAY = Duration.ofMillis(1500);

	private static GrpcApp server;

	private static TestPartner partner;

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	@BeforeAll
	static void start() {
		server = GrpcStack.NETTY.start(Map.of(), PartnerConfiguration.class);
		partner = server.context().getBean(TestPartner.class);
		int port = server.context().getBean(GrpcStack.GrpcPort.class).port.get();
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.data.redis.url", RedisTestServer.shared().url());
		properties.put("ratelimit.key-prefix", "grpc-clients-" + UUID.randomUUID().toString().substring(0, 8));
		properties.put("ratelimit.timeout", "5s");
		properties.put("spring.grpc.server.enabled", "false");
		properties.put("spring.grpc.client.channel.partner.target", "static://127.0.0.1:" + port);
		properties.put("spring.grpc.client.channel.learning.target", "static://127.0.0.1:" + port);
		// ten per minute in any minute, whoever calls
		client(properties, "shared", "10", "1m", "0s", "sliding-window-log");
		properties.put("ratelimit.clients.shared.grpc-services", "test.Partner/Get*");
		// two per second, a call waiting up to 5 s for its permit
		client(properties, "waiting", "2", "1s", "5s", "gcra");
		properties.put("ratelimit.clients.waiting.grpc-services", "test.Partner/Wait");
		// every call of the channel named learning
		client(properties, "learning", "100", "1m", "0s", "fixed-window");
		properties.put("ratelimit.clients.learning.grpc-channels", "learning");
		// one a minute, a call waiting up to 2 minutes for its permit
		client(properties, "patient", "1", "1m", "2m", "gcra");
		properties.put("ratelimit.clients.patient.grpc-services", "test.Partner/Later");
		first = start(properties);
		second = start(properties);
	}

	private static void client(Map<String, Object> properties, String name, String limit, String window,
			String maxWait, String algorithm) {
		String prefix = "ratelimit.clients." + name + ".";
		properties.put(prefix + "limit", limit);
		properties.put(prefix + "window", window);
		properties.put(prefix + "max-wait", maxWait);
		properties.put(prefix + "algorithm", algorithm);
	}

	private static ConfigurableApplicationContext start(Map<String, Object> properties) {
		return new SpringApplicationBuilder(ClientApplication.class).web(WebApplicationType.NONE)
			.properties(properties)
			.run();
	}

	@AfterAll
	static void stop() {
		if (first != null) {
			first.close();
		}
		if (second != null) {
			second.close();
		}
		if (server != null) {
			server.close();
		}
	}

	@Test
	void twoInstancesTogetherNeverCallThePartnerMoreThanItsLimit() throws Exception {
		int threads = 20;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		CountDownLatch go = new CountDownLatch(1);
		List<Future<List<Status>>> outcomes = new ArrayList<>();
		int before = partner.arrivals("Get").size();
		try {
			for (int i = 0; i < threads; i++) {
				ManagedChannel channel = channel((i % 2 == 0) ? first : second, "partner");
				// half the callers on blocking stubs, half on future stubs (their start delayed, no thread held)
				boolean blocking = i % 4 < 2;
				outcomes.add(executor.submit(() -> {
					go.await();
					List<Status> mine = new ArrayList<>();
					for (int call = 0; call < 3; call++) {
						mine.add(blocking ? callBlocking(channel, TestPartner.GET).status() : callAsync(channel));
					}
					return mine;
				}));
			}
			go.countDown();
			List<Status.Code> all = new ArrayList<>();
			for (Future<List<Status>> outcome : outcomes) {
				outcome.get(60, TimeUnit.SECONDS).forEach((status) -> all.add(status.getCode()));
			}
			assertThat(all).hasSize(60);
			assertThat(all).filteredOn((code) -> code == Status.Code.OK).hasSize(10);
			assertThat(all).filteredOn((code) -> code == Status.Code.RESOURCE_EXHAUSTED).hasSize(50);
			assertThat(partner.arrivals("Get")).hasSize(before + 10);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void aCallWaitsForItsPermitUpToMaxWaitThenGoesOut() {
		// two per second: the third to sixth calls wait for theirs, none gives up
		for (int i = 0; i < 6; i++) {
			assertThat(callBlocking(channel((i % 2 == 0) ? first : second, "partner"), TestPartner.WAIT).status()
				.getCode()).isEqualTo(Status.Code.OK);
		}
		assertThat(partner.arrivals("Wait")).hasSize(6);
		double waits = first.getBean(MeterRegistry.class).get("ratelimit.client.waits").tag("client", "waiting")
			.counter().count() + second.getBean(MeterRegistry.class).get("ratelimit.client.waits")
			.tag("client", "waiting").counter().count();
		assertThat(waits).isGreaterThanOrEqualTo(4);
	}

	@Test
	void aCallCancelledWhileItWaitsForItsPermitEndsCancelledWithoutLeaving() throws Exception {
		ManagedChannel channel = channel(first, "partner");
		assertThat(callBlocking(channel, TestPartner.LATER).status().isOk()).isTrue();
		ClientCall<String, String> call = channel.newCall(TestPartner.LATER, CallOptions.DEFAULT);
		CompletableFuture<Status> closed = new CompletableFuture<>();
		call.start(new ClientCall.Listener<>() {

			@Override
			public void onClose(Status status, Metadata trailers) {
				closed.complete(status);
			}

		}, new Metadata());
		call.request(1);
		call.sendMessage("item");
		call.halfClose();
		// its permit comes in a minute: it waits on a timer
		MeterRegistry meters = first.getBean(MeterRegistry.class);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> meters.find("ratelimit.client.waits").tag("client", "patient").counter() != null);
		call.cancel("no longer needed", null);
		assertThat(closed.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
		assertThat(partner.arrivals("Later")).hasSize(1);
	}

	@Test
	void afterThePartnersResourceExhaustedNoCallReachesItForItsRetryDelay() {
		int before = partner.arrivals("Refuse").size();
		partner.refuseNext(PARTNER_DELAY);
		Reply refused = callBlocking(channel(first, "learning"), TestPartner.REFUSE);
		// the partner's own answer reaches the caller unchanged
		assertThat(refused.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.status().getDescription()).isEqualTo("partner's limit exceeded");
		// the other instance is refused on its side, without calling
		Reply blocked = callBlocking(channel(second, "learning"), TestPartner.REFUSE);
		assertThat(blocked.status().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(blocked.status().getDescription()).contains("ratelimit.clients.learning");
		assertThat(blocked.retryDelay()).isPositive().isLessThanOrEqualTo(PARTNER_DELAY);
		assertThat(partner.arrivals("Refuse")).hasSize(before + 1);
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> callBlocking(channel(second, "learning"), TestPartner.REFUSE).status().isOk());
		List<Long> arrivals = partner.arrivals("Refuse");
		assertThat(arrivals).hasSize(before + 2);
		assertThat(Duration.ofNanos(arrivals.get(before + 1) - arrivals.get(before)))
			.isGreaterThanOrEqualTo(PARTNER_DELAY);
		assertThat(first.getBean(MeterRegistry.class)
			.get("ratelimit.client.partner.refusals")
			.tag("client", "learning")
			.tag("status", "RESOURCE_EXHAUSTED")
			.counter()
			.count()).isEqualTo(1);
	}

	@Test
	void aCallOverTheLimitEndsWithResourceExhaustedOnTheClientAsTheDocsShow() {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.data.redis.url", RedisTestServer.shared().url());
		properties.put("ratelimit.key-prefix", "grpc-clients-" + UUID.randomUUID().toString().substring(0, 8));
		properties.put("spring.grpc.server.enabled", "false");
		properties.put("spring.grpc.client.channel.inventory.target",
				"static://127.0.0.1:" + server.context().getBean(GrpcStack.GrpcPort.class).port.get());
		properties.put("ratelimit.clients.inventory.grpc-services", "test.Partner/*");
		properties.put("ratelimit.clients.inventory.limit", "1");
		properties.put("ratelimit.clients.inventory.window", "1h");
		properties.put("ratelimit.clients.inventory.algorithm", "fixed-window");
		// the window's clock stands still at the start of an hour: the wait the refusal tells is the whole hour
		try (ConfigurableApplicationContext application = new SpringApplicationBuilder(ClientApplication.class)
			.sources(StandingClock.class)
			.web(WebApplicationType.NONE)
			.properties(properties)
			.run()) {
			ManagedChannel channel = channel(application, "inventory");
			int before = partner.arrivals("Get").size();
			assertThat(callBlocking(channel, TestPartner.GET).status().isOk()).isTrue();
			Reply refused = callBlocking(channel, TestPartner.GET);
			assertThat(partner.arrivals("Get")).hasSize(before + 1);
			StringBuilder transcript = new StringBuilder();
			transcript.append("status: ").append(refused.status().getCode()).append('\n');
			transcript.append("description: ").append(refused.status().getDescription()).append('\n');
			transcript.append("google.rpc.RetryInfo retry_delay: ")
				.append((refused.retryDelay().toMillis() + 999) / 1000)
				.append("s\n");
			transcript.append("retry-after: ")
				.append(refused.trailers().get(Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER)))
				.append('\n');
			System.out.print(transcript);
			DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "clients.md"),
					"RateLimitGrpcClientsTests", null), transcript.toString());
		}
	}

	@Test
	void theInterceptorWorksOnAChannelBuiltByHand() {
		ManagedChannel channel = io.grpc.netty.NettyChannelBuilder
			.forAddress("127.0.0.1", server.context().getBean(GrpcStack.GrpcPort.class).port.get())
			.usePlaintext()
			.intercept(first.getBean(RateLimitClientInterceptor.class))
			.build();
		try {
			// the channel has no name: the budget of grpc-channels=learning does not cover its calls
			int before = partner.arrivals("Refuse").size();
			for (int i = 0; i < 3; i++) {
				assertThat(callBlocking(channel, TestPartner.REFUSE).status().isOk()).isTrue();
			}
			assertThat(partner.arrivals("Refuse")).hasSize(before + 3);
		}
		finally {
			channel.shutdownNow();
		}
	}

	@Test
	void anInvalidPatternStopsStartupNamingItsProperty() {
		assertThatThrownBy(() -> start(Map.of("spring.data.redis.url", RedisTestServer.shared().url(),
				"spring.grpc.server.enabled", "false", "ratelimit.clients.partner.grpc-services", "shop.Inventory, /shop.Inventory/Get",
				"ratelimit.clients.partner.limit", "5", "ratelimit.clients.partner.window", "1s")))
			.hasRootCauseInstanceOf(InvalidConfigurationPropertyValueException.class)
			.rootCause()
			.hasMessageContaining("ratelimit.clients.partner.grpc-services[1]")
			.hasMessageContaining("shop.Inventory/Get*");
	}

	private static ManagedChannel channel(ConfigurableApplicationContext application, String name) {
		return application.getBean(GrpcChannelFactory.class).createChannel(name);
	}

	private static Reply callBlocking(ManagedChannel channel, MethodDescriptor<String, String> method) {
		try {
			ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS),
					"item");
			return new Reply(Status.OK, new Metadata());
		}
		catch (StatusRuntimeException ex) {
			return new Reply(ex.getStatus(), (ex.getTrailers() != null) ? ex.getTrailers() : new Metadata());
		}
	}

	private static Status callAsync(ManagedChannel channel) throws InterruptedException {
		try {
			ClientCalls.futureUnaryCall(channel.newCall(TestPartner.GET, CallOptions.DEFAULT.withDeadlineAfter(20,
					TimeUnit.SECONDS)), "item").get(20, TimeUnit.SECONDS);
			return Status.OK;
		}
		catch (ExecutionException ex) {
			return Status.fromThrowable(ex.getCause());
		}
		catch (java.util.concurrent.TimeoutException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * How a call ended, as its client saw it.
	 * @param status its status
	 * @param trailers its trailers
	 */
	private record Reply(Status status, Metadata trailers) {

		/** The delay of the status's {@code google.rpc.RetryInfo}, zero without one. */
		Duration retryDelay() {
			com.google.rpc.Status details = StatusProto.fromStatusAndTrailers(this.status, this.trailers);
			for (Any detail : details.getDetailsList()) {
				if (detail.is(RetryInfo.class)) {
					try {
						com.google.protobuf.Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
						return Duration.ofSeconds(delay.getSeconds(), delay.getNanos());
					}
					catch (InvalidProtocolBufferException ex) {
						throw new IllegalStateException(ex);
					}
				}
			}
			return Duration.ZERO;
		}

	}

	/** The partner's service, in the server application. */
	static class PartnerConfiguration {

		@Bean
		TestPartner testPartner() {
			return new TestPartner();
		}

	}

	/** The fixed window's clock, standing still at the start of an hour. */
	static class StandingClock {

		@Bean
		MutableClock testClock() {
			return new MutableClock(Instant.parse("2026-12-07T05:00:00Z"));
		}

		@Bean
		FixedWindowRateLimiter clockedFixedWindowRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new FixedWindowRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

	}

	/** An application that calls the partner through Spring Boot's gRPC channel factory; it serves nothing. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ClientApplication {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
