package dev.ratelimit.grpc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.grpc.StatusException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The listener of a stream whose messages are charged one by one, with decisions the test completes and an executor
 * the test runs: nothing waits on the thread a message arrives on, the events behind a pending decision reach the
 * service in order once it completes, and a refused message closes the call, the service seeing no further event but
 * the cancellation.
 */
class ChargedMessagesTests {

	private final List<String> delivered = new ArrayList<>();

	private final Queue<CompletableFuture<@Nullable StatusException>> decisions = new ArrayDeque<>();

	private final Queue<Runnable> resumed = new ArrayDeque<>();

	private final RecordingCall call = new RecordingCall();

	private final ChargedMessages<String> messages = new ChargedMessages<>(new Service(), this.call, () -> {
		CompletableFuture<@Nullable StatusException> decision = new CompletableFuture<>();
		this.decisions.add(decision);
		return decision;
	}, (Executor) this.resumed::add);

	@Test
	void deliversTheFirstMessageAtOnceTheCallsDecisionHavingPaidForIt() {
		this.messages.onMessage("m1");
		assertThat(this.delivered).containsExactly("m1");
		assertThat(this.decisions).isEmpty();
	}

	@Test
	void holdsTheEventsBehindAPendingDecisionWithoutWaitingAndDeliversThemInOrderFromTheExecutor() {
		this.messages.onMessage("m1");
		// each call returns at once: the decision is pending
		this.messages.onMessage("m2");
		this.messages.onMessage("m3");
		this.messages.onHalfClose();
		assertThat(this.delivered).containsExactly("m1");
		assertThat(this.decisions).hasSize(1);
		this.decisions.remove().complete(null);
		// not on the thread that completed the decision
		assertThat(this.delivered).containsExactly("m1");
		this.resumed.remove().run();
		assertThat(this.delivered).containsExactly("m1", "m2");
		assertThat(this.decisions).hasSize(1);
		this.decisions.remove().complete(null);
		this.resumed.remove().run();
		assertThat(this.delivered).containsExactly("m1", "m2", "m3", "halfClose");
		assertThat(this.resumed).isEmpty();
		assertThat(this.call.closed).isNull();
	}

	@Test
	void deliversAtOnceWhatADecisionAlreadyMadeLetsThrough() {
		CompletableFuture<@Nullable StatusException> allowed = CompletableFuture.completedFuture(null);
		ChargedMessages<String> decided = new ChargedMessages<>(new Service(), this.call, () -> allowed,
				this.resumed::add);
		decided.onMessage("m1");
		decided.onMessage("m2");
		decided.onHalfClose();
		assertThat(this.delivered).containsExactly("m1", "m2", "halfClose");
		assertThat(this.resumed).isEmpty();
	}

	@Test
	void aRefusedMessageClosesTheCallWithItsRefusalAndTheServiceSeesOnlyTheCancellation() {
		this.messages.onMessage("m1");
		this.messages.onMessage("m2");
		this.messages.onMessage("m3");
		Metadata trailers = new Metadata();
		trailers.put(Metadata.Key.of("ratelimit", Metadata.ASCII_STRING_MARSHALLER), "\"chat\";r=0;t=60");
		this.decisions.remove()
			.complete(new StatusException(Status.RESOURCE_EXHAUSTED.withDescription("Rate limit 'chat'"), trailers));
		this.resumed.remove().run();
		assertThat(this.call.closed).isNotNull();
		assertThat(this.call.closed.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
		assertThat(this.call.trailers).isSameAs(trailers);
		assertThat(this.delivered).containsExactly("m1", "cancel");
		// what the transport delivers afterwards reaches no one, and is charged nothing
		this.messages.onMessage("m4");
		this.messages.onHalfClose();
		this.messages.onComplete();
		assertThat(this.delivered).containsExactly("m1", "cancel");
		assertThat(this.decisions).isEmpty();
	}

	/** The service's listener: records what it is told. */
	private final class Service extends ServerCall.Listener<String> {

		@Override
		public void onMessage(String message) {
			ChargedMessagesTests.this.delivered.add(message);
		}

		@Override
		public void onHalfClose() {
			ChargedMessagesTests.this.delivered.add("halfClose");
		}

		@Override
		public void onCancel() {
			ChargedMessagesTests.this.delivered.add("cancel");
		}

		@Override
		public void onComplete() {
			ChargedMessagesTests.this.delivered.add("complete");
		}

	}

	/** A call that records how it is closed. */
	private static final class RecordingCall extends ServerCall<String, String> {

		@Nullable Status closed;

		@Nullable Metadata trailers;

		@Override
		public void request(int numMessages) {
		}

		@Override
		public void sendHeaders(Metadata headers) {
		}

		@Override
		public void sendMessage(String message) {
		}

		@Override
		public void close(Status status, Metadata trailers) {
			this.closed = status;
			this.trailers = trailers;
		}

		@Override
		public boolean isCancelled() {
			return false;
		}

		@Override
		public MethodDescriptor<String, String> getMethodDescriptor() {
			throw new UnsupportedOperationException();
		}

	}

}
