package dev.ratelimit.grpc;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.util.ClassUtils;

/**
 * A gRPC service written by hand, without generated stubs: {@code test.Greeter} with a unary {@code SayHello}, a
 * server-streaming {@code Count} (three messages), a client-streaming {@code Upload} (answers how many parts it
 * received; ends the call with {@code INVALID_ARGUMENT} at once at a part {@code reject}), a bidirectional {@code Chat} (echoes each message), {@code Whoami} (the principal's name) and {@code Send}
 * (calls {@link LimitedSender}, a bean whose method is limited). Messages are UTF-8 strings. It counts the calls its
 * methods receive, and the messages {@code Upload} and {@code Chat} receive.
 */
public class TestGreeter implements BindableService {

	static final MethodDescriptor.Marshaller<String> STRING = new MethodDescriptor.Marshaller<>() {

		@Override
		public InputStream stream(String value) {
			return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
		}

		@Override
		public String parse(InputStream stream) {
			try {
				return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	};

	static final MethodDescriptor<String, String> SAY_HELLO = method("SayHello", MethodDescriptor.MethodType.UNARY);

	static final MethodDescriptor<String, String> COUNT = method("Count", MethodDescriptor.MethodType.SERVER_STREAMING);

	static final MethodDescriptor<String, String> WHOAMI = method("Whoami", MethodDescriptor.MethodType.UNARY);

	static final MethodDescriptor<String, String> SEND = method("Send", MethodDescriptor.MethodType.UNARY);

	static final MethodDescriptor<String, String> UPLOAD = method("Upload", MethodDescriptor.MethodType.CLIENT_STREAMING);

	static final MethodDescriptor<String, String> CHAT = method("Chat", MethodDescriptor.MethodType.BIDI_STREAMING);

	final AtomicInteger received = new AtomicInteger();

	/** When each {@code SayHello} call reached the service, in milliseconds. */
	final java.util.Queue<Long> helloTimes = new java.util.concurrent.ConcurrentLinkedQueue<>();

	/** The messages {@code Upload} and {@code Chat} received. */
	final AtomicInteger messages = new AtomicInteger();

	private final LimitedSender sender;

	TestGreeter(LimitedSender sender) {
		this.sender = sender;
	}

	private static MethodDescriptor<String, String> method(String name, MethodDescriptor.MethodType type) {
		return MethodDescriptor.<String, String>newBuilder()
			.setType(type)
			.setFullMethodName(MethodDescriptor.generateFullMethodName("test.Greeter", name))
			.setRequestMarshaller(STRING)
			.setResponseMarshaller(STRING)
			.build();
	}

	@Override
	public ServerServiceDefinition bindService() {
		return ServerServiceDefinition.builder("test.Greeter")
			.addMethod(SAY_HELLO, ServerCalls.asyncUnaryCall((request, response) -> {
				this.received.incrementAndGet();
				this.helloTimes.add(System.currentTimeMillis());
				response.onNext("hello " + request);
				response.onCompleted();
			}))
			.addMethod(COUNT, ServerCalls.asyncServerStreamingCall((request, response) -> {
				this.received.incrementAndGet();
				for (int i = 1; i <= 3; i++) {
					response.onNext(request + " " + i);
				}
				response.onCompleted();
			}))
			.addMethod(UPLOAD, ServerCalls.asyncClientStreamingCall((response) -> {
				this.received.incrementAndGet();
				return new StreamObserver<String>() {

					private int parts;

					private boolean rejected;

					@Override
					public void onNext(String part) {
						TestGreeter.this.messages.incrementAndGet();
						this.parts++;
						if ("reject".equals(part) && !this.rejected) {
							// the service ends the call before its client has sent everything
							this.rejected = true;
							response.onError(Status.INVALID_ARGUMENT.withDescription("rejected").asRuntimeException());
						}
					}

					@Override
					public void onError(Throwable failure) {
					}

					@Override
					public void onCompleted() {
						if (!this.rejected) {
							response.onNext(this.parts + " parts");
							response.onCompleted();
						}
					}

				};
			}))
			.addMethod(CHAT, ServerCalls.asyncBidiStreamingCall((response) -> {
				this.received.incrementAndGet();
				return new StreamObserver<String>() {

					@Override
					public void onNext(String message) {
						TestGreeter.this.messages.incrementAndGet();
						response.onNext("echo " + message);
					}

					@Override
					public void onError(Throwable failure) {
					}

					@Override
					public void onCompleted() {
						response.onCompleted();
					}

				};
			}))
			.addMethod(WHOAMI, ServerCalls.asyncUnaryCall((request, response) -> {
				this.received.incrementAndGet();
				response.onNext(principal());
				response.onCompleted();
			}))
			.addMethod(SEND, ServerCalls.asyncUnaryCall((request, response) -> {
				this.received.incrementAndGet();
				response.onNext(this.sender.send(request));
				response.onCompleted();
			}))
			.build();
	}

	private static String principal() {
		if (!ClassUtils.isPresent("org.springframework.security.core.context.SecurityContextHolder", null)) {
			return "anonymous";
		}
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		return (authentication != null) ? authentication.getName() : "anonymous";
	}

}
