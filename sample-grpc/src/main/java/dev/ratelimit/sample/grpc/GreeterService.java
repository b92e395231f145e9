package dev.ratelimit.sample.grpc;

import dev.ratelimit.sample.grpc.proto.GreeterGrpc;
import dev.ratelimit.sample.grpc.proto.HelloReply;
import dev.ratelimit.sample.grpc.proto.HelloRequest;
import io.grpc.stub.StreamObserver;

import org.springframework.stereotype.Service;

/**
 * gRPC's greeter: nothing in it knows about rate limits; the rules of {@code application.properties} apply to its
 * calls by their full method names.
 */
@Service
public class GreeterService extends GreeterGrpc.GreeterImplBase {

	@Override
	public void sayHello(HelloRequest request, StreamObserver<HelloReply> responses) {
		responses.onNext(HelloReply.newBuilder().setMessage("Hello, " + request.getName()).build());
		responses.onCompleted();
	}

	@Override
	public void streamHellos(HelloRequest request, StreamObserver<HelloReply> responses) {
		for (int i = 1; i <= 3; i++) {
			responses.onNext(HelloReply.newBuilder().setMessage("Hello #" + i + ", " + request.getName()).build());
		}
		responses.onCompleted();
	}

	@Override
	public StreamObserver<HelloRequest> chat(StreamObserver<HelloReply> responses) {
		return new StreamObserver<>() {

			@Override
			public void onNext(HelloRequest request) {
				responses.onNext(HelloReply.newBuilder().setMessage("Hello, " + request.getName()).build());
			}

			@Override
			public void onError(Throwable failure) {
				// the client went away, or the rules ended the call: nothing to answer
			}

			@Override
			public void onCompleted() {
				responses.onCompleted();
			}

		};
	}

}
