package dev.ratelimit.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.grpc.Attributes;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusException;
import org.jspecify.annotations.Nullable;

/**
 * A gRPC call charged to a partner's budget: started on the channel once the budget gives it a permit, what the
 * caller does before (request, send, half-close, cancel) kept in order and replayed then; closed on the client side
 * when the budget refuses it. The partner's {@code RESOURCE_EXHAUSTED} with a wait blocks the budget before the
 * caller hears of it, so that its next call already finds the budget blocked.
 * @param <ReqT> the request messages' type
 * @param <RespT> the response messages' type
 */
final class PermittedCall<ReqT, RespT> extends ClientCall<ReqT, RespT> {

	private final PartnerBudget budget;

	private final GrpcMethod call;

	private final Supplier<ClientCall<ReqT, RespT>> newCall;

	/** Where the caller hears of the call (a blocking stub's own thread); the completing thread when none is set. */
	private final Executor callbacks;

	private final Object lock = new Object();

	/** What the caller did before the permit, in order; {@code null} once replayed (or the call refused). */
	private @Nullable List<Consumer<ClientCall<ReqT, RespT>>> pending = new ArrayList<>();

	private @Nullable ClientCall<ReqT, RespT> started;

	/** The caller's listener, once the caller started the call. */
	private @Nullable Listener<RespT> listener;

	private boolean closed;

	PermittedCall(PartnerBudget budget, GrpcMethod call, Supplier<ClientCall<ReqT, RespT>> newCall,
			@Nullable Executor callbacks) {
		this.budget = budget;
		this.call = call;
		this.newCall = newCall;
		this.callbacks = (callbacks != null) ? callbacks : Runnable::run;
	}

	@Override
	public void start(Listener<RespT> listener, Metadata headers) {
		synchronized (this.lock) {
			this.listener = listener;
		}
		// the call starts on another thread: in the caller's context (its deadline, its cancellation)
		Context context = Context.current();
		this.budget.takeAsync(this.call).whenComplete((permit, failure) -> context.run(() -> {
			if (failure != null) {
				refuse(listener, (failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure);
			}
			else {
				begin(listener, headers);
			}
		}));
	}

	private void begin(Listener<RespT> listener, Metadata headers) {
		ClientCall<ReqT, RespT> call = this.newCall.get();
		synchronized (this.lock) {
			if (this.closed) {
				// cancelled while it waited: the permit is spent, the call never leaves
				return;
			}
			call.start(new Learning(listener), headers);
			List<Consumer<ClientCall<ReqT, RespT>>> replay = this.pending;
			this.pending = null;
			this.started = call;
			if (replay != null) {
				replay.forEach((operation) -> operation.accept(call));
			}
		}
	}

	private void refuse(Listener<RespT> listener, Throwable failure) {
		synchronized (this.lock) {
			if (this.closed) {
				return;
			}
			this.closed = true;
			this.pending = null;
		}
		StatusException refusal = GrpcAnswers.refusal(failure, this.budget.name());
		Metadata trailers = (refusal.getTrailers() != null) ? refusal.getTrailers() : new Metadata();
		this.callbacks.execute(() -> listener.onClose(refusal.getStatus(), trailers));
	}

	/** Runs an operation on the call once it has started, or keeps it for then. */
	private void onCall(Consumer<ClientCall<ReqT, RespT>> operation) {
		ClientCall<ReqT, RespT> call;
		synchronized (this.lock) {
			if (this.pending != null) {
				this.pending.add(operation);
				return;
			}
			call = this.started;
		}
		if (call != null) {
			operation.accept(call);
		}
	}

	@Override
	public void request(int numMessages) {
		onCall((call) -> call.request(numMessages));
	}

	@Override
	public void cancel(@Nullable String message, @Nullable Throwable cause) {
		Listener<RespT> waiting = null;
		synchronized (this.lock) {
			if (this.started == null) {
				if (this.closed) {
					return;
				}
				// waiting for its permit: the call ends here, its listener closed as gRPC closes a cancelled call's
				this.closed = true;
				this.pending = null;
				waiting = this.listener;
			}
		}
		if (waiting != null) {
			Listener<RespT> closing = waiting;
			Status cancelled = Status.CANCELLED.withDescription((message != null) ? message : "Call cancelled")
				.withCause(cause);
			this.callbacks.execute(() -> closing.onClose(cancelled, new Metadata()));
			return;
		}
		onCall((call) -> call.cancel(message, cause));
	}

	@Override
	public void halfClose() {
		onCall(ClientCall::halfClose);
	}

	@Override
	public void sendMessage(ReqT message) {
		onCall((call) -> call.sendMessage(message));
	}

	@Override
	public void setMessageCompression(boolean enabled) {
		onCall((call) -> call.setMessageCompression(enabled));
	}

	@Override
	public boolean isReady() {
		ClientCall<ReqT, RespT> call;
		synchronized (this.lock) {
			call = this.started;
		}
		return call != null && call.isReady();
	}

	@Override
	public Attributes getAttributes() {
		ClientCall<ReqT, RespT> call;
		synchronized (this.lock) {
			call = this.started;
		}
		return (call != null) ? call.getAttributes() : Attributes.EMPTY;
	}

	/** The caller's listener, the partner's refusals learned from before it hears of them. */
	private final class Learning extends ForwardingClientCallListener.SimpleForwardingClientCallListener<RespT> {

		Learning(Listener<RespT> delegate) {
			super(delegate);
		}

		@Override
		public void onClose(Status status, Metadata trailers) {
			Duration wait = PermittedCall.this.budget.learns() ? GrpcAnswers.waitAskedFor(status, trailers) : null;
			if (wait == null) {
				super.onClose(status, trailers);
				return;
			}
			// blocking the budget asks Redis: not on this thread, which may be an event loop
			CompletableFuture.runAsync(() -> PermittedCall.this.budget.learned(status.getCode().name(), wait))
				.whenComplete((ignored, failure) -> PermittedCall.this.callbacks
					.execute(() -> super.onClose(status, trailers)));
		}

	}

}
