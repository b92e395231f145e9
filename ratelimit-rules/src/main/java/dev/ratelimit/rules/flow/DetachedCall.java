package dev.ratelimit.rules.flow;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;


/**
 * A call that is no web request of the application's own (a bean method's call, a gRPC call, a call out to a
 * partner): its attributes are kept here, it has no headers or peer unless it says otherwise, and a refusal is kept
 * for its entry point to answer (throw, close the call, wait) rather than written as a response; what it settles once
 * complete (slots of requests in flight, charges by status) is kept for its entry point too.
 *
 * @since 0.1.0
 */
public abstract class DetachedCall implements RateLimitCall {

	/** Made at the first attribute: most exchanges get none. */
	private @Nullable Map<String, Object> attributes;

	private @Nullable RateLimitRejection rejection;

	private final PendingSettlement after = new PendingSettlement();

	private java.util.function.Consumer<AfterResponse> late = (after) -> {
	};

	/**
	 * Returns why the flow refused the exchange, once it has.
	 * @return the refusal, or {@code null}
	 */
	public @Nullable RateLimitRejection rejection() {
		return this.rejection;
	}

	/**
	 * Keeps what the call settles once it is complete, for its entry point: with {@link dev.ratelimit.rules.flow.RateLimitFlow#end}
	 * when it ends or is cancelled.
	 */
	@Override
	public void settleAfter(AfterResponse more) {
		if (!this.after.add(more)) {
			this.late.accept(more);
		}
	}

	/**
	 * Sets what is done with what a stage hands over once the call has ended (a decision that completed after the
	 * call was cancelled): by default nothing; an entry point settles it at once.
	 * @param settle settles it
	 */
	public void settleLate(java.util.function.Consumer<AfterResponse> settle) {
		this.late = settle;
	}

	/**
	 * Ends the call: returns what it settles once it is complete, so that it is settled once; what a stage hands over
	 * afterwards goes to {@link #settleLate}.
	 * @return what it settles, {@link AfterResponse#NONE} when nothing
	 */
	public AfterResponse takeAfterResponse() {
		return this.after.close();
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		Map<String, Object> attributes = this.attributes;
		return (attributes != null) ? attributes.get(name) : null;
	}

	@Override
	public void setAttribute(String name, Object value) {
		Map<String, Object> attributes = this.attributes;
		if (attributes == null) {
			attributes = new HashMap<>(4);
			this.attributes = attributes;
		}
		attributes.put(name, value);
	}

	@Override
	public CompletableFuture<Void> reject(RateLimitRejection rejection) {
		this.rejection = rejection;
		return CompletableFuture.completedFuture(null);
	}

}
