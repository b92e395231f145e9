package dev.ratelimit.grpc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.RetryInfo;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * A running application with gRPC services, and a real gRPC client (grpc-java over Netty, plaintext HTTP/2) on
 * 127.0.0.1 to call them.
 */
final class GrpcApp implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private final int port;

	private volatile ManagedChannel channel;

	/**
	 * The connection of the calls held open apart ({@link #openApart}), so that Tomcat ending the others'
	 * connection after refused streams (GOAWAY ENHANCE_YOUR_CALM, docs/grpc.md) does not end a held call.
	 */
	private final ManagedChannel held;

	GrpcApp(ConfigurableApplicationContext context, int port) {
		this.context = context;
		this.port = port;
		this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
		this.held = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
	}

	ConfigurableApplicationContext context() {
		return this.context;
	}

	/**
	 * Makes the calls that follow on a new connection, and lets the old one end with its calls: a test that shares the
	 * application with one that refused streams still being sent starts apart from the connection Tomcat may be ending
	 * for them (GOAWAY ENHANCE_YOUR_CALM, docs/grpc.md).
	 */
	void reconnect() {
		ManagedChannel old = this.channel;
		this.channel = NettyChannelBuilder.forAddress("127.0.0.1", this.port).usePlaintext().build();
		old.shutdown();
	}


	/**
	 * Makes a call, unary, server-streaming or client-streaming (the request's comma-separated parts one message each),
	 * and reads it to its end.
	 * @param method the method
	 * @param request the request message
	 * @param metadata the call's headers
	 * @return how it ended
	 */
	Reply call(MethodDescriptor<String, String> method, String request, Map<String, String> metadata) {
		Metadata sent = new Metadata();
		metadata.forEach((name, value) -> sent.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), value));
		AtomicReference<Metadata> headers = new AtomicReference<>();
		AtomicReference<Metadata> trailers = new AtomicReference<>();
		Channel channel = ClientInterceptors.intercept(this.channel, MetadataUtils.newAttachHeadersInterceptor(sent),
				MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
		CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
		List<String> messages = new ArrayList<>();
		try {
			if (method.getType() == MethodDescriptor.MethodType.UNARY) {
				messages.add(ClientCalls.blockingUnaryCall(channel, method, options, request));
			}
			else if (method.getType() == MethodDescriptor.MethodType.CLIENT_STREAMING) {
				// the request's comma-separated parts, one message each
				CompletableFuture<String> answer = new CompletableFuture<>();
				StreamObserver<String> parts = ClientCalls.asyncClientStreamingCall(channel.newCall(method, options),
						new StreamObserver<>() {

							@Override
							public void onNext(String value) {
								answer.complete(value);
							}

							@Override
							public void onError(Throwable failure) {
								answer.completeExceptionally(failure);
							}

							@Override
							public void onCompleted() {
							}

						});
				for (String part : request.split(",")) {
					parts.onNext(part);
				}
				parts.onCompleted();
				try {
					messages.add(answer.get(20, TimeUnit.SECONDS));
				}
				catch (ExecutionException ex) {
					throw (ex.getCause() instanceof StatusRuntimeException status) ? status
							: new IllegalStateException(ex.getCause());
				}
				catch (InterruptedException | TimeoutException ex) {
					throw new IllegalStateException(ex);
				}
			}
			else {
				Iterator<String> responses = ClientCalls.blockingServerStreamingCall(channel, method, options, request);
				responses.forEachRemaining(messages::add);
			}
			return new Reply(Status.Code.OK, messages, headers.get(), trailers.get(), null);
		}
		catch (StatusRuntimeException ex) {
			return new Reply(ex.getStatus().getCode(), messages, headers.get(), ex.getTrailers(),
					StatusProto.fromThrowable(ex));
		}
	}

	/**
	 * Makes a client-streaming or bidirectional call: sends every message at once, half-closes, and reads what comes
	 * back to the call's end.
	 * @param method the method
	 * @param requests the messages, sent without waiting for any answer
	 * @param metadata the call's headers
	 * @return how it ended, with every message it received
	 */
	Reply stream(MethodDescriptor<String, String> method, List<String> requests, Map<String, String> metadata) {
		Metadata sent = new Metadata();
		metadata.forEach((name, value) -> sent.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), value));
		io.grpc.ClientCall<String, String> call = this.channel.newCall(method,
				CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS));
		List<String> messages = new java.util.concurrent.CopyOnWriteArrayList<>();
		AtomicReference<Metadata> headers = new AtomicReference<>();
		CompletableFuture<Reply> ended = new CompletableFuture<>();
		call.start(new io.grpc.ClientCall.Listener<>() {

			@Override
			public void onHeaders(Metadata received) {
				headers.set(received);
			}

			@Override
			public void onMessage(String message) {
				messages.add(message);
			}

			@Override
			public void onClose(Status status, Metadata trailers) {
				ended.complete(new Reply(status.getCode(), List.copyOf(messages), headers.get(), trailers,
						StatusProto.fromStatusAndTrailers(status, trailers)));
			}

		}, sent);
		call.request(Integer.MAX_VALUE);
		for (String request : requests) {
			call.sendMessage(request);
		}
		call.halfClose();
		try {
			return ended.get(30, TimeUnit.SECONDS);
		}
		catch (ExecutionException | InterruptedException | TimeoutException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Starts a call and sends one message without ending it: a call in flight until the test half-closes or cancels
	 * it.
	 * @param method the method, client-streaming
	 * @param message the message
	 * @param metadata the call's headers
	 * @return the call, and its status once it ends
	 */
	Open open(MethodDescriptor<String, String> method, String message, Map<String, String> metadata) {
		return open(this.channel, method, message, metadata);
	}

	/**
	 * Starts a call as {@link #open} does, on a connection of its own: one that the other calls' refusals cannot end
	 * (Tomcat ends a connection after refused streams, docs/grpc.md).
	 * @param method the method, client-streaming
	 * @param message the message
	 * @param metadata the call's headers
	 * @return the call, and its status once it ends
	 */
	Open openApart(MethodDescriptor<String, String> method, String message, Map<String, String> metadata) {
		return open(this.held, method, message, metadata);
	}

	private static Open open(Channel connection, MethodDescriptor<String, String> method, String message,
			Map<String, String> metadata) {
		Metadata sent = new Metadata();
		metadata.forEach((name, value) -> sent.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), value));
		io.grpc.ClientCall<String, String> call = connection.newCall(method,
				CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS));
		CompletableFuture<Status> closed = new CompletableFuture<>();
		call.start(new io.grpc.ClientCall.Listener<>() {

			@Override
			public void onClose(Status status, Metadata trailers) {
				closed.complete(status);
			}

		}, sent);
		call.request(1);
		call.sendMessage(message);
		return new Open(call, closed);
	}

	/**
	 * A call in flight.
	 * @param call the call
	 * @param closed its status once it ends
	 */
	record Open(io.grpc.ClientCall<String, String> call, CompletableFuture<Status> closed) {
	}

	Reply call(MethodDescriptor<String, String> method, String request) {
		return call(method, request, Map.of());
	}

	@Override
	public void close() {
		this.channel.shutdownNow();
		this.held.shutdownNow();
		this.context.close();
	}

	/**
	 * How a call ended.
	 * @param code its status
	 * @param messages the messages it received
	 * @param headers its response headers, {@code null} when it had none (a refusal has trailers only)
	 * @param trailers its trailers
	 * @param details the {@code google.rpc.Status} of a failed call, when it has one
	 */
	record Reply(Status.Code code, List<String> messages, @Nullable Metadata headers, @Nullable Metadata trailers,
			com.google.rpc.@Nullable Status details) {

		@Nullable String header(String name) {
			return (this.headers != null) ? this.headers.get(key(name)) : null;
		}

		@Nullable String trailer(String name) {
			return (this.trailers != null) ? this.trailers.get(key(name)) : null;
		}

		/** The retry delay of the {@code google.rpc.RetryInfo} detail, {@code null} without one. */
		@Nullable Duration retryDelay() {
			if (this.details == null) {
				return null;
			}
			for (Any detail : this.details.getDetailsList()) {
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
			return null;
		}

		private static Metadata.Key<String> key(String name) {
			return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
		}

	}

}
