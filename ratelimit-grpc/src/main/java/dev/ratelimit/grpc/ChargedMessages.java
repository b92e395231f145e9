package dev.ratelimit.grpc;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.grpc.StatusException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The listener of a streaming call whose rules charge each message the client sends ({@code charge-per-message}):
 * every message but the first, which the call's own decision paid for, is held back until its charge is decided, and
 * the call's events reach the service one at a time, in the order they came. A refused message closes the call with
 * its refusal, and the service, told that the call is cancelled, sees no further message.
 * <p>
 * A decision is never waited for on the thread the message came on (the call's executor, which may be the
 * transport's): the events behind it wait here, and the service asks for no further message meanwhile (grpc-java's
 * stubs ask for the next one when one is delivered), so that HTTP/2 flow control holds the client back. Once decided,
 * the waiting events are delivered from the given executor, the call's own being out of an interceptor's reach.
 *
 * @param <Q> the type of the call's messages
 */
final class ChargedMessages<Q> extends ServerCall.Listener<Q> {

	private static final Log logger = LogFactory.getLog(ChargedMessages.class);

	private final ServerCall.Listener<Q> delegate;

	private final ServerCall<Q, ?> call;

	private final Supplier<CompletableFuture<@Nullable StatusException>> decide;

	private final Executor executor;

	/** The call's gRPC context, current while the service hears of a message delivered late. */
	private final Context context;

	/** The events not delivered yet: {@link Message}s and {@link Event}s. Guarded by itself. */
	private final ArrayDeque<Object> events = new ArrayDeque<>();

	/** Whether a thread delivers the events, or a decision holds them back. Guarded by {@link #events}. */
	private boolean delivering;

	/** Whether the first message, paid for by the call's decision, was delivered. Read and written by the deliverer. */
	private boolean firstDelivered;

	/** Whether a message was refused: the call is closed, nothing more is delivered. Read and written by the deliverer. */
	private boolean ended;

	/**
	 * Creates the listener.
	 * @param delegate the listener of the call's service
	 * @param call the call, closed when a message is refused
	 * @param decide decides the charge of one message: completes with the end of a refused call, {@code null} when
	 * the message is let through; never waits
	 * @param executor delivers the events a decision held back
	 */
	ChargedMessages(ServerCall.Listener<Q> delegate, ServerCall<Q, ?> call,
			Supplier<CompletableFuture<@Nullable StatusException>> decide, Executor executor) {
		this.delegate = delegate;
		this.call = call;
		this.decide = decide;
		this.executor = executor;
		this.context = Context.current();
	}

	@Override
	public void onMessage(Q message) {
		offer(new Message<>(message));
	}

	@Override
	public void onHalfClose() {
		offer(Event.HALF_CLOSE);
	}

	@Override
	public void onCancel() {
		offer(Event.CANCEL);
	}

	@Override
	public void onComplete() {
		offer(Event.COMPLETE);
	}

	@Override
	public void onReady() {
		offer(Event.READY);
	}

	private void offer(Object event) {
		synchronized (this.events) {
			this.events.add(event);
			if (this.delivering) {
				// delivered in turn, by the thread that delivers or once the pending decision completes
				return;
			}
			this.delivering = true;
		}
		deliver();
	}

	/**
	 * Delivers the waiting events in order until none is left, or until a message's decision is pending: the
	 * decision then delivers the rest when it completes.
	 */
	private void deliver() {
		while (true) {
			Object event;
			synchronized (this.events) {
				event = this.events.poll();
				if (event == null) {
					this.delivering = false;
					return;
				}
			}
			if (this.ended) {
				// refused: the service was told the call is cancelled, and the call is closed
				continue;
			}
			if (event instanceof Message<?> message) {
				@SuppressWarnings("unchecked")
				Q value = (Q) message.value();
				if (!this.firstDelivered) {
					this.firstDelivered = true;
					this.delegate.onMessage(value);
					continue;
				}
				CompletableFuture<@Nullable StatusException> decision = this.decide.get();
				if (!decision.isDone()) {
					decision.whenComplete((end, failure) -> resume(value, decision));
					return;
				}
				decided(value, decision);
			}
			else {
				((Event) event).deliverTo(this.delegate);
			}
		}
	}

	private void resume(Q message, CompletableFuture<@Nullable StatusException> decision) {
		Runnable rest = () -> {
			try {
				decided(message, decision);
			}
			catch (RuntimeException ex) {
				// the service failed outside the call's executor, where grpc-java would have closed the call
				logger.warn("A gRPC service failed on a message of a call whose messages are rate limited; the call is "
						+ "closed", ex);
				this.ended = true;
				closeQuietly(Status.fromThrowable(ex), new Metadata());
			}
			deliver();
		};
		try {
			this.executor.execute(this.context.wrap(rest));
		}
		catch (RejectedExecutionException ex) {
			// shutting down: delivered on the thread that completed the decision
			rest.run();
		}
	}

	private void decided(Q message, CompletableFuture<@Nullable StatusException> decision) {
		StatusException end;
		try {
			end = decision.join();
		}
		catch (CompletionException ex) {
			// the enforcer applies the failure mode to Redis' failures: what reaches here is unexpected, and let through
			logger.warn("The rate-limit decision of a message of a gRPC call failed; the message was let through",
					ex.getCause());
			end = null;
		}
		if (end == null) {
			this.delegate.onMessage(message);
			return;
		}
		this.ended = true;
		Metadata trailers = end.getTrailers();
		closeQuietly(end.getStatus(), (trailers != null) ? trailers : new Metadata());
		// the service stops as for a call the client cancelled: it sees no further message
		this.delegate.onCancel();
	}

	private void closeQuietly(Status status, Metadata trailers) {
		try {
			this.call.close(status, trailers);
		}
		catch (IllegalStateException ex) {
			// the service closed the call already
		}
	}

	/** A message waiting for its decision or its turn. */
	private record Message<Q>(Q value) {
	}

	/** The other events of a call, delivered in their turn. */
	private enum Event {

		HALF_CLOSE {
			@Override
			void deliverTo(ServerCall.Listener<?> listener) {
				listener.onHalfClose();
			}
		},

		CANCEL {
			@Override
			void deliverTo(ServerCall.Listener<?> listener) {
				listener.onCancel();
			}
		},

		COMPLETE {
			@Override
			void deliverTo(ServerCall.Listener<?> listener) {
				listener.onComplete();
			}
		},

		READY {
			@Override
			void deliverTo(ServerCall.Listener<?> listener) {
				listener.onReady();
			}
		};

		abstract void deliverTo(ServerCall.Listener<?> listener);

	}

}
