package dev.ratelimit.grpc;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ServerCalls;

/**
 * A partner's gRPC service written by hand, {@code test.Partner} with the unary methods {@code Get}, {@code Wait},
 * {@code Refuse} and {@code Later}: each records when a call arrives and answers {@code ok}; {@code Refuse} answers once with
 * {@code RESOURCE_EXHAUSTED} and a {@code google.rpc.RetryInfo} when told to ({@link #refuseNext}), as a partner over
 * its limit does.
 */
class TestPartner implements BindableService {

	static final MethodDescriptor<String, String> GET = method("Get");

	static final MethodDescriptor<String, String> WAIT = method("Wait");

	static final MethodDescriptor<String, String> REFUSE = method("Refuse");

	static final MethodDescriptor<String, String> LATER = method("Later");

	private final Map<String, List<Long>> arrivals = new ConcurrentHashMap<>();

	private final AtomicReference<Duration> refusal = new AtomicReference<>();

	private static MethodDescriptor<String, String> method(String name) {
		return MethodDescriptor.<String, String>newBuilder()
			.setType(MethodDescriptor.MethodType.UNARY)
			.setFullMethodName(MethodDescriptor.generateFullMethodName("test.Partner", name))
			.setRequestMarshaller(TestGreeter.STRING)
			.setResponseMarshaller(TestGreeter.STRING)
			.build();
	}

	/**
	 * Has the next call of {@code Refuse} answered {@code RESOURCE_EXHAUSTED} with a {@code RetryInfo}.
	 * @param retryDelay the delay it asks for
	 */
	void refuseNext(Duration retryDelay) {
		this.refusal.set(retryDelay);
	}

	/**
	 * Returns when the calls of a method arrived.
	 * @param method the method's name
	 * @return {@link System#nanoTime} of each arrival, in order
	 */
	List<Long> arrivals(String method) {
		return List.copyOf(this.arrivals.getOrDefault(method, List.of()));
	}

	@Override
	public ServerServiceDefinition bindService() {
		ServerServiceDefinition.Builder service = ServerServiceDefinition.builder("test.Partner");
		for (MethodDescriptor<String, String> method : List.of(GET, WAIT, REFUSE, LATER)) {
			service.addMethod(method, ServerCalls.asyncUnaryCall((request, response) -> {
				this.arrivals.computeIfAbsent(method.getBareMethodName(), (name) -> new CopyOnWriteArrayList<>())
					.add(System.nanoTime());
				Duration delay = (method == REFUSE) ? this.refusal.getAndSet(null) : null;
				if (delay != null) {
					response.onError(StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
						.setCode(Code.RESOURCE_EXHAUSTED.getNumber())
						.setMessage("partner's limit exceeded")
						.addDetails(Any.pack(RetryInfo.newBuilder()
							.setRetryDelay(com.google.protobuf.Duration.newBuilder()
								.setSeconds(delay.getSeconds())
								.setNanos(delay.getNano()))
							.build()))
						.build()));
					return;
				}
				response.onNext("ok");
				response.onCompleted();
			}));
		}
		return service.build();
	}

}
