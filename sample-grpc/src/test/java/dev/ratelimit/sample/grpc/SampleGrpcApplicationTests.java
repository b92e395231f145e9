package dev.ratelimit.sample.grpc;

import dev.ratelimit.testsupport.RateLimitFields;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.google.protobuf.Any;
import com.google.rpc.RetryInfo;
import dev.ratelimit.autoconfigure.RateLimitProperties;
import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.redis.LocalDenialCache;
import dev.ratelimit.sample.grpc.proto.GreeterGrpc;
import dev.ratelimit.sample.grpc.proto.HelloRequest;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The gRPC sample as its documentation's client transcript uses it: generated stubs over a real channel to the
 * Netty gRPC server on 127.0.0.1, and a real Redis.
 */
@SpringBootTest(properties = { "spring.grpc.server.port=0", "spring.grpc.server.address=127.0.0.1" })
class SampleGrpcApplicationTests {

	private static final Path GRPC_DOC = Path.of("..", "docs", "grpc.md");

	@Autowired
	private GrpcPort port;

	@Autowired
	private StringRedisTemplate redis;

	@Autowired
	private LocalDenialCache denialCache;

	@Value("${ratelimit.key-prefix}")
	private String prefix;

	private ManagedChannel channel;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", () -> RedisTestServer.shared().url());
		// one prefix, read by the application and by the test (a supplier is asked again at each read)
		String prefix = "sample-grpc-" + UUID.randomUUID().toString().substring(0, 8);
		registry.add("ratelimit.key-prefix", () -> prefix);
		// the transcripts show every header: a slow moment on a loaded machine must not turn a decision into fail-open
		registry.add("ratelimit.timeout", () -> "5s");
	}

	@BeforeEach
	void connect() {
		this.channel = ManagedChannelBuilder.forAddress("127.0.0.1", this.port.port.get()).usePlaintext().build();
	}

	@AfterEach
	void disconnect() {
		this.channel.shutdownNow();
	}

	@Test
	void sayHelloIsLimitedToThreeCallsPerMinutePerApiKey() throws Exception {
		for (int i = 1; i <= 3; i++) {
			assertThat(stub("key-a").sayHello(HelloRequest.newBuilder().setName("Ada").build()).getMessage())
				.isEqualTo("Hello, Ada");
		}
		StatusRuntimeException refused = catchThrowableOfType(StatusRuntimeException.class,
				() -> stub("key-a").sayHello(HelloRequest.newBuilder().setName("Ada").build()));
		assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		String policy = refused.getTrailers().get(Metadata.Key.of("ratelimit-policy", Metadata.ASCII_STRING_MARSHALLER));
		assertThat(policy).isNotNull();
		assertThat(RateLimitFields.withoutPartitionKeys(policy)).isEqualTo("\"hello\";q=3;w=60");
		assertThat(retryDelay(refused)).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
		// another key has a budget of its own
		assertThat(stub("key-b").sayHello(HelloRequest.newBuilder().setName("Bob").build()).getMessage())
			.isEqualTo("Hello, Bob");
	}

	@Test
	void aStreamingCallIsChargedOnceWhateverItCarries() {
		AtomicReference<Metadata> headers = new AtomicReference<>();
		AtomicReference<Metadata> trailers = new AtomicReference<>();
		List<String> replies = new ArrayList<>();
		GreeterGrpc.newBlockingStub(this.channel)
			.withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(headers, trailers))
			.withDeadlineAfter(10, TimeUnit.SECONDS)
			.streamHellos(HelloRequest.newBuilder().setName("Ada").build())
			.forEachRemaining((reply) -> replies.add(reply.getMessage()));
		assertThat(replies).hasSize(3);
		// one call charged of the address's ten, which the other test's calls share: read it rather than assume
		String ratelimit = headers.get().get(Metadata.Key.of("ratelimit", Metadata.ASCII_STRING_MARSHALLER));
		assertThat(ratelimit).contains("\"greeter\";r=");
		int remaining = Integer.parseInt(ratelimit.replaceAll(".*\"greeter\";r=(\\d+).*", "$1"));
		GreeterGrpc.newBlockingStub(this.channel)
			.withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(headers, trailers))
			.withDeadlineAfter(10, TimeUnit.SECONDS)
			.streamHellos(HelloRequest.newBuilder().setName("Bob").build())
			.forEachRemaining((reply) -> replies.add(reply.getMessage()));
		String next = headers.get().get(Metadata.Key.of("ratelimit", Metadata.ASCII_STRING_MARSHALLER));
		assertThat(Integer.parseInt(next.replaceAll(".*\"greeter\";r=(\\d+).*", "$1"))).isEqualTo(remaining - 1);
	}

	@Test
	void aChatStreamCarriesFiveMessagesPerMinutePerApiKey() throws Exception {
		Metadata metadata = new Metadata();
		metadata.put(Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER), "chatter");
		List<String> replies = new java.util.concurrent.CopyOnWriteArrayList<>();
		java.util.concurrent.CompletableFuture<Throwable> ended = new java.util.concurrent.CompletableFuture<>();
		io.grpc.stub.StreamObserver<HelloRequest> requests = GreeterGrpc.newStub(this.channel)
			.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata))
			.withDeadlineAfter(10, TimeUnit.SECONDS)
			.chat(new io.grpc.stub.StreamObserver<>() {

				@Override
				public void onNext(dev.ratelimit.sample.grpc.proto.HelloReply reply) {
					replies.add(reply.getMessage());
				}

				@Override
				public void onError(Throwable failure) {
					ended.complete(failure);
				}

				@Override
				public void onCompleted() {
					ended.complete(null);
				}

			});
		for (int i = 1; i <= 8; i++) {
			requests.onNext(HelloRequest.newBuilder().setName("message " + i).build());
		}
		requests.onCompleted();
		StatusRuntimeException refused = (StatusRuntimeException) ended.get(10, TimeUnit.SECONDS);
		assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(refused.getStatus().getDescription()).startsWith("Rate limit 'chat' of 5 per minute exceeded");
		assertThat(retryDelay(refused)).isPositive();
		assertThat(replies).containsExactly("Hello, message 1", "Hello, message 2", "Hello, message 3",
				"Hello, message 4", "Hello, message 5");
	}

	@Test
	void theClientPrintsWhatDocsGrpcShows() throws Exception {
		freshBudgets();
		String hello = client("hello", "4", "key-a") + client("stream", "7") + client("stream", "1");
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(GRPC_DOC, "SampleGrpcApplicationTests",
				"hello"), hello);
		// the chat transcript is of a fresh instance
		freshBudgets();
		String chat = client("chat", "8", "key-a") + client("chat", "2", "key-a") + client("chat", "2", "key-b");
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(GRPC_DOC, "SampleGrpcApplicationTests",
				"chat"), chat);
	}

	/**
	 * Runs the documented client's {@code main} with the documented arguments against this server (its fourth
	 * argument), and returns the command as the document writes it and what the client printed.
	 */
	private String client(String... args) throws Exception {
		ByteArrayOutputStream printed = new ByteArrayOutputStream();
		PrintStream out = System.out;
		System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
		try {
			String[] withServer = Arrays.copyOf(args, 4);
			withServer[2] = (args.length > 2) ? args[2] : "";
			withServer[3] = "127.0.0.1:" + this.port.port.get();
			GreeterClient.main(withServer);
		}
		finally {
			System.setOut(out);
		}
		return "$ java -cp ... dev.ratelimit.sample.grpc.GreeterClient " + String.join(" ", args) + "\n"
				+ printed.toString(StandardCharsets.UTF_8);
	}

	private void freshBudgets() {
		Set<String> keys = this.redis.keys(this.prefix + ":*");
		if (!keys.isEmpty()) {
			this.redis.delete(keys);
		}
		this.denialCache.clear();
	}

	private GreeterGrpc.GreeterBlockingStub stub(String apiKey) {
		Metadata metadata = new Metadata();
		metadata.put(Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER), apiKey);
		return GreeterGrpc.newBlockingStub(this.channel)
			.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata))
			.withDeadlineAfter(10, TimeUnit.SECONDS);
	}

	private static Duration retryDelay(StatusRuntimeException ex) throws Exception {
		for (Any detail : StatusProto.fromThrowable(ex).getDetailsList()) {
			if (detail.is(RetryInfo.class)) {
				com.google.protobuf.Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
				return Duration.ofSeconds(delay.getSeconds(), delay.getNanos());
			}
		}
		return Duration.ZERO;
	}

	/** The port the gRPC server listens on, once started. */
	static final class GrpcPort implements ApplicationListener<GrpcServerStartedEvent> {

		final AtomicInteger port = new AtomicInteger();

		@Override
		public void onApplicationEvent(GrpcServerStartedEvent event) {
			this.port.set(event.getPort());
		}

	}

	@TestConfiguration(proxyBeanMethods = false)
	static class PortConfiguration {

		@Bean
		GrpcPort grpcPort() {
			return new GrpcPort();
		}

		@Bean
		MutableClock testClock() {
			// the start of a minute, and a clock that stands still: the documented transcripts are of calls made
			// within one second
			return new MutableClock(Instant.parse("2026-12-06T11:20:00Z"));
		}

		@Bean
		FixedWindowRateLimiter testFixedWindowRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new FixedWindowRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

	}

}
