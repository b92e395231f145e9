package dev.ratelimit.grpc;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import io.grpc.StatusException;
import org.jspecify.annotations.Nullable;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.rules.flow.CallEnd;
import dev.ratelimit.rules.flow.RateLimitRequest;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Applies rules to gRPC calls, for the two {@link RateLimitServerInterceptor}s, by driving the
 * {@link RateLimitFlow} with what is gRPC's own: the call's exchange, kept in its {@link Context} for the second
 * turn and for the {@link dev.ratelimit.RateLimited} bean methods the service calls; the rate-limit values added to
 * the response headers of an allowed call; a refused call closed with its status and trailers; the charges of
 * {@code count-statuses} rules settled when the call closes, by the HTTP status its gRPC status stands for; the
 * messages of a streaming call charged one by one under the rules that charge per message
 * ({@link ChargedMessages}).
 *
 * @since 0.1.0
 */
public final class GrpcRateLimitSupport implements AutoCloseable {

	private static final Context.Key<GrpcExchange> EXCHANGE = Context.key("dev.ratelimit.grpc.exchange");

	private final RateLimitFlow flow;

	private final RateLimitRuleRegistry rules;

	private final ClientAddressResolver addresses;

	/** Delivers the messages whose charges were decided after the thread they came on had moved on. */
	private final ExecutorService messages;

	/**
	 * Creates the support.
	 * @param flow takes each call through the rules
	 * @param rules the rules in force, to know whether bean methods read the calls they are made in
	 * @param addresses resolves client addresses
	 */
	public GrpcRateLimitSupport(RateLimitFlow flow, RateLimitRuleRegistry rules, ClientAddressResolver addresses) {
		this.flow = flow;
		this.rules = rules;
		this.addresses = addresses;
		// as grpc-java's default executor: a thread per delivery in progress, none when idle
		CustomizableThreadFactory threads = new CustomizableThreadFactory("ratelimit-grpc-messages-");
		threads.setDaemon(true);
		this.messages = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
				threads);
	}

	/**
	 * Applies the rules that run before authentication to a call, and starts it when they allow it.
	 * @param call the call
	 * @param headers its metadata
	 * @param next starts the call
	 * @param <Q> the type of its requests
	 * @param <R> the type of its responses
	 * @return the call's listener; a refused call is closed already
	 */
	<Q, R> ServerCall.Listener<Q> beforeAuthentication(ServerCall<Q, R> call, Metadata headers,
			ServerCallHandler<Q, R> next) {
		boolean before = this.flow.mayApplyBeforeAuthentication();
		if (!before && !this.flow.mayApplyAfterAuthentication() && !this.rules.methodRulesReadRequests()) {
			return next.startCall(call, headers);
		}
		GrpcExchange exchange = new GrpcExchange(call, headers, this.addresses);
		if (before && !this.flow.beforeAuthentication(exchange).join()) {
			return refuse(call, exchange);
		}
		return proceed(call, headers, next, exchange,
				before ? perMessage(call, exchange,
						() -> this.rules.matchBeforeAuthentication(exchange.method(), exchange::path)) : List.of());
	}

	/**
	 * Applies the rules that run once a call is authenticated (those keyed by {@code principal}), and starts it
	 * when they allow it.
	 * @param call the call
	 * @param headers its metadata
	 * @param next starts the call
	 * @param <Q> the type of its requests
	 * @param <R> the type of its responses
	 * @return the call's listener; a refused call is closed already
	 */
	<Q, R> ServerCall.Listener<Q> afterAuthentication(ServerCall<Q, R> call, Metadata headers,
			ServerCallHandler<Q, R> next) {
		if (!this.flow.mayApplyAfterAuthentication()) {
			return next.startCall(call, headers);
		}
		GrpcExchange earlier = EXCHANGE.get();
		GrpcExchange exchange = (earlier != null) ? earlier : new GrpcExchange(call, headers, this.addresses);
		if (!this.flow.afterAuthentication(exchange).join()) {
			return refuse(call, exchange);
		}
		List<RateLimitRule> perMessage = perMessage(call, exchange,
				() -> this.rules.matchAfterAuthentication(exchange.method(), exchange::path, null));
		if (earlier == null) {
			return proceed(call, headers, next, exchange, perMessage);
		}
		// the first turn's call sends the headers of both
		return chargingMessages(call, next.startCall(call, headers), exchange, perMessage);
	}

	/**
	 * Returns the call the calling thread serves, for the keys of {@link dev.ratelimit.RateLimited} bean methods that
	 * a service calls: read only, never answered through.
	 * @return the call, or {@code null} outside one (or when no rule reads it)
	 */
	public @Nullable RateLimitRequest currentRequest() {
		return EXCHANGE.get();
	}

	/**
	 * Turns the {@link RateLimitExceededException} of a limited bean method that a service called into the end of
	 * its call, as the rules end a refused call: {@code RESOURCE_EXHAUSTED}, its retry delay, the rate-limit values
	 * of the call's rules and of the limits that refused it; what Spring gRPC's {@code GrpcExceptionHandler} of the
	 * auto-configuration answers, instead of the {@code UNKNOWN} status of an exception nobody handles.
	 * @param failure what the service threw
	 * @return the status and trailers, or {@code null} when the failure is no refusal
	 */
	public @Nullable StatusException refusal(Throwable failure) {
		Throwable cause = failure;
		while (cause != null && !(cause instanceof RateLimitExceededException)) {
			cause = cause.getCause();
		}
		if (!(cause instanceof RateLimitExceededException refused)) {
			return null;
		}
		GrpcExchange current = EXCHANGE.get();
		GrpcExchange exchange = (current != null) ? current : new GrpcExchange(null, null, this.addresses);
		this.flow.refuse(exchange, refused).join();
		RateLimitRejection rejection = exchange.rejection();
		return (rejection != null) ? GrpcRefusals.of(rejection, exchange) : null;
	}

	/**
	 * Returns the rules among those a turn matched that charge each message a streaming call's client sends, when the
	 * call is one and the flow let it go on under its rules.
	 */
	private List<RateLimitRule> perMessage(ServerCall<?, ?> call, GrpcExchange exchange,
			Supplier<List<RateLimitRule>> matched) {
		if (call.getMethodDescriptor().getType().clientSendsOneMessage() || this.flow.allowedPastRules(exchange)) {
			return List.of();
		}
		return matched.get().stream().filter(RateLimitRule::chargePerMessage).toList();
	}

	/**
	 * Returns the listener of a call whose messages are charged under rules, one by one, or the call's own when no
	 * rule charges them.
	 */
	private <Q> ServerCall.Listener<Q> chargingMessages(ServerCall<Q, ?> call, ServerCall.Listener<Q> listener,
			GrpcExchange exchange, List<RateLimitRule> perMessage) {
		if (perMessage.isEmpty()) {
			return listener;
		}
		// the call's principal, read where the call is decided, for every message
		String principal = GrpcExchange.currentPrincipal();
		return new ChargedMessages<>(listener, call, () -> {
			GrpcExchange message = exchange.forMessage(principal);
			return this.flow.apply(message, perMessage)
				.thenApply((allowed) -> allowed ? null
						: GrpcRefusals.of(Objects.requireNonNull(message.rejection()), message));
		}, this.messages);
	}

	/**
	 * Stops the threads that deliver messages whose charges were decided late.
	 */
	@Override
	public void close() {
		this.messages.shutdown();
	}

	private <Q, R> ServerCall.Listener<Q> proceed(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next,
			GrpcExchange exchange, List<RateLimitRule> perMessage) {
		Context context = Context.current().withValue(EXCHANGE, exchange);
		ServerCall.Listener<Q> listener;
		LimitedCall<Q, R> limited = new LimitedCall<>(call, exchange);
		try {
			listener = Contexts.interceptCall(context, limited, headers, next);
		}
		catch (RuntimeException | Error ex) {
			// a later interceptor threw instead of closing the call: grpc-java closes the stream, and neither close nor
			// onCancel comes; what the rules took is given back now
			this.flow.end(exchange.takeAfterResponse(), CallEnd.abandoned(), false);
			throw ex;
		}
		return chargingMessages(limited, new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {

			@Override
			public void onCancel() {
				// a call the client cancelled keeps its charges, as an abandoned HTTP request does, and gives its slots back
				AfterResponse after = exchange.takeAfterResponse();
				if (!after.isEmpty()) {
					GrpcRateLimitSupport.this.flow.end(after, CallEnd.abandoned(), false);
				}
				super.onCancel();
			}

		}, exchange, perMessage);
	}

	private <Q> ServerCall.Listener<Q> refuse(ServerCall<Q, ?> call, GrpcExchange exchange) {
		// what the first turn took is settled as a refused HTTP request's: by the status it ends with
		AfterResponse after = exchange.takeAfterResponse();
		if (!after.isEmpty()) {
			// its handler never runs: what the first turn reserved is given back
			this.flow.end(after, CallEnd.refusedLater(429, null), false);
		}
		// the flow answered a refusal before it returned false
		StatusException end = GrpcRefusals.of(Objects.requireNonNull(exchange.rejection()), exchange);
		Metadata trailers = end.getTrailers();
		// headers, then the status in the trailers: gRPC hosted in Tomcat cannot end a call with its headers alone
		// (the client reads "unexpected EOS on empty DATA frame" as INTERNAL). The rate-limit values go in both:
		// Tomcat drops Retry-After from trailers, as HTTP allows no such field there.
		Metadata headers = new Metadata();
		exchange.addHeadersTo(headers);
		call.sendHeaders(headers);
		call.close(end.getStatus(), (trailers != null) ? trailers : new Metadata());
		return new ServerCall.Listener<>() {
		};
	}

	/**
	 * A call the rules allowed: it sends the rate-limit values with its headers (sent before it closes, if it has
	 * sent none), and settles its charges when it closes.
	 */
	private final class LimitedCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {

		private final GrpcExchange exchange;

		private boolean headersSent;

		private boolean closed;

		LimitedCall(ServerCall<Q, R> call, GrpcExchange exchange) {
			super(call);
			this.exchange = exchange;
		}

		@Override
		public void sendHeaders(Metadata headers) {
			this.exchange.addHeadersTo(headers);
			this.headersSent = true;
			super.sendHeaders(headers);
		}

		@Override
		public void close(Status status, Metadata trailers) {
			if (this.closed) {
				// a second close (an exception handler closing a call the service closed) fails below, settling nothing
				super.close(status, trailers);
				return;
			}
			this.closed = true;
			if (!this.headersSent && !isCancelled()) {
				// a call that fails before its first message (a limited bean method refused it): its headers first,
				// with the rate-limit values, as a refusal of the rules is sent
				sendHeaders(new Metadata());
			}
			AfterResponse after = this.exchange.takeAfterResponse();
			if (!after.isEmpty()) {
				// a call the client cancelled keeps its charges, as an abandoned HTTP request does
				if (isCancelled()) {
					GrpcRateLimitSupport.this.flow.end(after, CallEnd.abandoned(), false);
				}
				else {
					GrpcRateLimitSupport.this.flow.end(after, CallEnd.grpc(status.getCode().value()), false);
				}
			}
			super.close(status, trailers);
		}

	}

}
