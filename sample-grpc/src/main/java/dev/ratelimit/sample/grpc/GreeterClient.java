package dev.ratelimit.sample.grpc;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.RetryInfo;
import dev.ratelimit.sample.grpc.proto.GreeterGrpc;
import dev.ratelimit.sample.grpc.proto.HelloReply;
import dev.ratelimit.sample.grpc.proto.HelloRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import org.jspecify.annotations.Nullable;

/**
 * Calls the running sample as any gRPC client would, and prints what a client sees of the limits: the
 * {@code ratelimit} header of allowed calls, and the status, retry delay and trailers of refused ones. Arguments:
 * the method ({@code hello}, {@code stream} or {@code chat}), how many calls (for {@code chat}: how many messages on
 * one stream), the API key (optional), the server (default {@code 127.0.0.1:9090}).
 */
public final class GreeterClient {

	private GreeterClient() {
	}

	public static void main(String[] args) throws InterruptedException {
		String method = (args.length > 0) ? args[0] : "hello";
		int calls = (args.length > 1) ? Integer.parseInt(args[1]) : 4;
		String apiKey = (args.length > 2) ? args[2] : "";
		String target = (args.length > 3) ? args[3] : "127.0.0.1:9090";
		ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
		try {
			if (method.equals("chat")) {
				chat(channel, calls, apiKey);
				return;
			}
			for (int i = 1; i <= calls; i++) {
				Metadata sent = new Metadata();
				if (!apiKey.isEmpty()) {
					sent.put(Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER), apiKey);
				}
				AtomicReference<Metadata> headers = new AtomicReference<>();
				AtomicReference<Metadata> trailers = new AtomicReference<>();
				GreeterGrpc.GreeterBlockingStub stub = GreeterGrpc.newBlockingStub(channel)
					.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(sent),
							MetadataUtils.newCaptureMetadataInterceptor(headers, trailers))
					.withDeadlineAfter(10, TimeUnit.SECONDS);
				HelloRequest request = HelloRequest.newBuilder().setName("call " + i).build();
				try {
					StringBuilder replies = new StringBuilder();
					if (method.equals("stream")) {
						stub.streamHellos(request).forEachRemaining((reply) -> replies.append(reply.getMessage()).append(" | "));
					}
					else {
						HelloReply reply = stub.sayHello(request);
						replies.append(reply.getMessage());
					}
					System.out.println(i + ": OK " + replies + "  ratelimit: " + value(headers.get(), "ratelimit"));
				}
				catch (StatusRuntimeException ex) {
					System.out.println(i + ": " + ex.getStatus().getCode() + " " + ex.getStatus().getDescription());
					System.out.println("   retry delay: " + retryDelay(ex) + "  ratelimit: "
							+ value(ex.getTrailers(), "ratelimit") + "  ratelimit-policy: "
							+ value(ex.getTrailers(), "ratelimit-policy"));
				}
			}
		}
		finally {
			channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
		}
	}

	/** Sends the messages on one stream, at once, and prints each answer and how the stream ended. */
	private static void chat(ManagedChannel channel, int messages, String apiKey) throws InterruptedException {
		Metadata sent = new Metadata();
		if (!apiKey.isEmpty()) {
			sent.put(Metadata.Key.of("x-api-key", Metadata.ASCII_STRING_MARSHALLER), apiKey);
		}
		CountDownLatch ended = new CountDownLatch(1);
		StreamObserver<HelloRequest> requests = GreeterGrpc.newStub(channel)
			.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(sent))
			.withDeadlineAfter(10, TimeUnit.SECONDS)
			.chat(new StreamObserver<>() {

				private int answers;

				@Override
				public void onNext(HelloReply reply) {
					System.out.println(++this.answers + ": " + reply.getMessage());
				}

				@Override
				public void onError(Throwable failure) {
					StatusRuntimeException ex = (StatusRuntimeException) failure;
					System.out.println("ended: " + ex.getStatus().getCode() + " " + ex.getStatus().getDescription());
					System.out.println("   retry delay: " + retryDelay(ex) + "  ratelimit: "
							+ value(ex.getTrailers(), "ratelimit"));
					ended.countDown();
				}

				@Override
				public void onCompleted() {
					System.out.println("ended: OK");
					ended.countDown();
				}

			});
		for (int i = 1; i <= messages; i++) {
			requests.onNext(HelloRequest.newBuilder().setName("message " + i).build());
		}
		requests.onCompleted();
		ended.await(15, TimeUnit.SECONDS);
	}

	private static String value(@Nullable Metadata metadata, String name) {
		String value = (metadata != null) ? metadata.get(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER)) : null;
		return (value != null) ? value : "-";
	}

	private static String retryDelay(StatusRuntimeException ex) {
		com.google.rpc.Status status = StatusProto.fromThrowable(ex);
		if (status == null) {
			return "-";
		}
		for (Any detail : status.getDetailsList()) {
			if (detail.is(RetryInfo.class)) {
				try {
					com.google.protobuf.Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
					return delay.getSeconds() + "." + String.format("%03d", delay.getNanos() / 1_000_000) + "s";
				}
				catch (InvalidProtocolBufferException invalid) {
					return "unreadable";
				}
			}
		}
		return "-";
	}

}
