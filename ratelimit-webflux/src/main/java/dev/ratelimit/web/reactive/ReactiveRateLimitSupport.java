package dev.ratelimit.web.reactive;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.rules.flow.CallEnd;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.HeaderFields;
import dev.ratelimit.rules.flow.RateLimitRequest;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;
import dev.ratelimit.rules.flow.ContentNegotiation;
import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.rules.flow.PendingSettlement;

import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.NotAcceptableStatusException;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;

/**
 * Applies rules to WebFlux exchanges, for the {@link RateLimitWebFilter} and the
 * {@link RateLimitHandlerWebFilter} alike, by driving the {@link RateLimitFlow} with what is WebFlux's own:
 * reading the exchange and its keys without blocking, looking plans up on {@code boundedElastic}, bringing
 * the decision back to the connection's event loop, writing the headers and, when it is refused, the
 * {@link RateLimitRejectionHandler}'s response through the application's codecs, and settling the charges
 * of {@code count-statuses} rules just before the response is committed.
 *
 * @since 0.1.0
 */
public final class ReactiveRateLimitSupport {

	/** The exchange attribute that holds the slots to give back when the exchange completes. */
	private static final String SLOTS = ReactiveRateLimitSupport.class.getName() + ".slots";


	private static final Mono<Boolean> GO_ON = Mono.just(true);

	private static final Mono<Boolean> STOP = Mono.just(false);

	private final RateLimitFlow flow;

	private final ClientAddressResolver addresses;

	private final Function<String, ReactiveRateLimitKeyResolver> keyResolvers;

	private final Map<String, ReactiveRateLimitKeyResolver> resolvedKeyResolvers = new ConcurrentHashMap<>();

	private final Function<String, ReactiveRateLimitCondition> conditions;

	private final Map<String, ReactiveRateLimitCondition> resolvedConditions = new ConcurrentHashMap<>();

	private final RateLimitRejectionHandler rejections;

	private final List<HttpMessageWriter<?>> writers;

	private final List<HandlerMapping> handlerMappings;

	/**
	 * Creates the support.
	 * @param flow takes each exchange through the rules
	 * @param addresses resolves client addresses
	 * @param keyResolvers finds the key-resolver bean of a name (or alias), for {@code bean:<name>} keys
	 * @param conditions finds the condition bean of a name, for {@code condition=bean:<name>}
	 * @param rejections builds the responses to refused requests
	 * @param writers the application's codecs' writers, for the bodies of refusals
	 * @param handlerMappings find the handler of an exchange, for the rules of annotated handlers
	 */
	public ReactiveRateLimitSupport(RateLimitFlow flow, ClientAddressResolver addresses,
			Function<String, ReactiveRateLimitKeyResolver> keyResolvers,
			Function<String, ReactiveRateLimitCondition> conditions, RateLimitRejectionHandler rejections,
			List<HttpMessageWriter<?>> writers, List<? extends HandlerMapping> handlerMappings) {
		this.flow = flow;
		this.addresses = addresses;
		this.keyResolvers = keyResolvers;
		this.conditions = conditions;
		this.rejections = rejections;
		this.writers = List.copyOf(writers);
		this.handlerMappings = List.copyOf(handlerMappings);
	}

	/**
	 * Applies the rules that run before authentication, for the {@link RateLimitWebFilter}.
	 * @param exchange the exchange
	 * @return whether the exchange may go on; when not, its response is written
	 */
	Mono<Boolean> applyBeforeAuthentication(ServerWebExchange exchange) {
		if (!this.flow.mayApplyBeforeAuthentication()) {
			return GO_ON;
		}
		return Mono.deferContextual(
				(context) -> answer(this.flow.beforeAuthentication(new WebFluxExchange(exchange, context))));
	}

	/**
	 * Applies the rules that run after authentication, for the {@link RateLimitHandlerWebFilter}: those
	 * keyed by {@code principal}, then those of the exchange's handler.
	 * @param exchange the exchange
	 * @return whether the exchange may go on; when not, its response is written
	 */
	Mono<Boolean> applyAfterAuthentication(ServerWebExchange exchange) {
		if (!this.flow.mayApplyAfterAuthentication()) {
			return GO_ON;
		}
		return Mono.deferContextual(
				(context) -> answer(this.flow.afterAuthentication(new WebFluxExchange(exchange, context))));
	}

	/**
	 * Runs a filter's work (its decision, then the rest of the chain), then gives back the slots of requests in flight
	 * ({@code concurrency} rules) the exchange's rules took, when it completes: its response written, failed or
	 * cancelled. A decision that completes after that (never cancelled, it may still take a slot) gives its slots back
	 * at once.
	 * @param exchange the exchange
	 * @param work the filter's work
	 * @return the work, settling when it ends
	 */
	Mono<Void> settling(ServerWebExchange exchange, Mono<Void> work) {
		return work.doFinally((signal) -> {
			// one map operation on a request that took no slot: no holder is made for it
			Object held = exchange.getAttributes().putIfAbsent(SLOTS, PendingSettlement.ENDED);
			if (held instanceof PendingSettlement pending && pending != PendingSettlement.ENDED) {
				AfterResponse slots = pending.close();
				if (!slots.isEmpty()) {
					this.flow.end(slots, CallEnd.abandoned(), false);
				}
			}
		});
	}

	private static PendingSettlement pending(ServerWebExchange exchange) {
		return (PendingSettlement) exchange.getAttributes().computeIfAbsent(SLOTS, (name) -> new PendingSettlement());
	}

	/**
	 * Returns the exchange a subscription is made for, for the keys of {@link dev.ratelimit.RateLimited} bean methods
	 * that return a publisher: read only, never answered through.
	 * @param context the subscription's Reactor context, where {@link ServerWebExchangeContextFilter} puts the exchange
	 * @return the exchange, or {@code null} when the context holds none
	 */
	public @Nullable RateLimitRequest currentRequest(ContextView context) {
		return ServerWebExchangeContextFilter.getExchange(context)
			.map((exchange) -> (RateLimitRequest) new WebFluxExchange(exchange, context))
			.orElse(null);
	}

	/**
	 * Answers an exchange whose handler failed with {@link RateLimitExceededException} (a limited bean method it
	 * called was refused) as the rules answer a refused request: 429, the rate-limit headers of the limits that
	 * refused it, the {@link RateLimitRejectionHandler}'s body through the application's codecs.
	 * @param exchange the exchange, its response not committed yet
	 * @param refused the refusal
	 * @return completes when the response is written
	 */
	public Mono<Void> refuse(ServerWebExchange exchange, RateLimitExceededException refused) {
		return Mono.deferContextual((context) -> Mono
			.fromFuture(this.flow.refuse(new WebFluxExchange(exchange, context), refused), true));
	}

	/**
	 * Answers an exchange whose handler failed because Spring Framework's {@code @ConcurrencyLimit} refused a method
	 * it called ({@code InvocationRejectedException}): the {@link RateLimitRejectionHandler}'s body for a
	 * {@link dev.ratelimit.rules.flow.RateLimitRejection.Throttled} rejection, through the application's codecs.
	 * @param exchange the exchange, its response not committed yet
	 * @param status the status to answer with: 503 or 429
	 * @param retryAfterSeconds the {@code Retry-After} to send, in whole seconds; zero to send none
	 * @return completes when the response is written
	 */
	public Mono<Void> throttle(ServerWebExchange exchange, int status, long retryAfterSeconds) {
		return Mono.deferContextual((context) -> Mono
			.fromFuture(this.flow.throttle(new WebFluxExchange(exchange, context), status, retryAfterSeconds), true));
	}

	/** The flow's answer as a publisher; one it gave at once (no rule matched, say) without wrapping its future. */
	private static Mono<Boolean> answer(CompletableFuture<Boolean> flow) {
		if (flow.isDone() && !flow.isCompletedExceptionally()) {
			return flow.join() ? GO_ON : STOP;
		}
		return Mono.fromFuture(flow, true);
	}

	private Mono<Object> handler(ServerWebExchange exchange) {
		return Flux.fromIterable(this.handlerMappings)
			.concatMap((mapping) -> mapping.getHandler(exchange))
			.next()
			// a request no handler takes, or one its mapping refuses, meets only the path rules
			.onErrorResume((ex) -> Mono.empty());
	}

	/** An exchange, as the flow reads and writes it. */
	private final class WebFluxExchange implements RateLimitRequest {

		private final ServerWebExchange exchange;

		private final ServerHttpRequest request;

		private final ContextView context;

		private @Nullable String clientAddress;

		WebFluxExchange(ServerWebExchange exchange, ContextView context) {
			this.exchange = exchange;
			this.request = exchange.getRequest();
			this.context = context;
		}

		@Override
		public String method() {
			return this.request.getMethod().name();
		}

		@Override
		public PathContainer path() {
			// the path within the application, as WebFlux's handler mappings match it
			return this.request.getPath().pathWithinApplication();
		}

		@Override
		public String target() {
			return this.request.getPath().value();
		}

		@Override
		public String clientAddress() {
			String address = this.clientAddress;
			if (address == null) {
				address = ReactiveRateLimitSupport.this.addresses.resolve(remoteAddress(),
						(name) -> this.request.getHeaders().getOrEmpty(name));
				this.clientAddress = address;
			}
			return address;
		}

		@Override
		public String remoteAddress() {
			InetSocketAddress remote = this.request.getRemoteAddress();
			if (remote == null) {
				return "";
			}
			return (remote.getAddress() != null) ? remote.getAddress().getHostAddress() : remote.getHostString();
		}

		@Override
		public @Nullable String header(String name) {
			return this.request.getHeaders().getFirst(name);
		}

		@Override
		public CompletionStage<@Nullable String> parameter(String name) {
			return future(ReactiveRateLimitSupport.parameter(this.exchange, name));
		}

		@Override
		public CompletionStage<@Nullable String> principal() {
			return future(this.exchange.getPrincipal().map(Principal::getName));
		}

		@Override
		public CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
			if (rule.key() instanceof RuleKey.Bean bean) {
				// a key resolver is application code: what it throws charges the client address
				return future(Mono.defer(() -> ReactiveRateLimitSupport.this.resolvedKeyResolvers
					.computeIfAbsent(bean.name(), ReactiveRateLimitSupport.this.keyResolvers)
					.resolveKey(this.exchange)));
			}
			return RateLimitRequest.super.resolveKey(rule);
		}

		@Override
		public CompletionStage<@Nullable Boolean> condition(RateLimitRule rule) {
			String name = Objects.requireNonNull(rule.condition());
			return future(Mono.defer(() -> ReactiveRateLimitSupport.this.resolvedConditions
				.computeIfAbsent(name, ReactiveRateLimitSupport.this.conditions)
				.applies(this.exchange)));
		}

		@Override
		public CompletableFuture<@Nullable HandlerMethod> handler(boolean worthLookingUp) {
			if (!worthLookingUp) {
				return CompletableFuture.completedFuture(null);
			}
			return future(ReactiveRateLimitSupport.this.handler(this.exchange)
				.filter(HandlerMethod.class::isInstance)
				.cast(HandlerMethod.class));
		}

		@Override
		public @Nullable Object getAttribute(String name) {
			return this.exchange.getAttribute(name);
		}

		@Override
		public void setAttribute(String name, Object value) {
			this.exchange.getAttributes().put(name, value);
		}

		@Override
		public boolean mayBlock() {
			return false;
		}

		@Override
		public CompletableFuture<Void> blocking(Runnable task) {
			return future(Mono.fromRunnable(task).subscribeOn(Schedulers.boundedElastic()).then());
		}

		@Override
		public <T> T observed(Supplier<T> call) {
			return ReactorObservations.inRequest(this.context, call);
		}

		@Override
		public <T> CompletableFuture<T> resume(CompletableFuture<T> decision) {
			return EventLoops.backOn(this.exchange, decision);
		}

		@Override
		public void writeHeaders(HttpHeaders headers) {
			ReactiveRateLimitSupport.writeHeaders(this.exchange.getResponse(), headers);
		}

		@Override
		public CompletableFuture<Void> reject(RateLimitRejection rejection) {
			return future(write(this.exchange, ReactiveRateLimitSupport.this.rejections.handle(rejection)));
		}

		/**
		 * Subscribes to a publisher of the exchange with the Reactor context of its chain, where Spring Security
		 * keeps the request's principal.
		 */
		private <T> CompletableFuture<T> future(Mono<T> publisher) {
			return publisher.contextWrite(this.context).toFuture();
		}

		@Override
		public void settleAfter(AfterResponse after) {
			if (after.hasCharges()) {
				// settled once the response's final status is known, before it is sent (an error the handler throws is
				// the 500 WebFlux writes); a response that is never committed (the client went away) keeps its charges,
				// as on the servlet stack
				ServerHttpResponse response = this.exchange.getResponse();
				AfterResponse charges = after.chargesOnly();
				// the actual costs the handler set (cost-from), kept from the client unless exposed
				ServerWebExchange served = this.exchange;
				response.beforeCommit(() -> Mono.fromFuture(() -> {
					int status = (response.getStatusCode() != null) ? response.getStatusCode().value() : 200;
					CallEnd how = (served.getAttribute(RateLimitFlow.REFUSED) != null)
							? CallEnd.refusedLater(status, response.getHeaders())
							: CallEnd.answered(status, response.getHeaders());
					return ReactiveRateLimitSupport.this.flow.end(charges, how, false);
				}));
			}
			if (after.hasSlots()) {
				// given back when the exchange completes (settling, below), its body written or not; at once when it
				// ended already (the client went away while Redis was deciding)
				AfterResponse slots = after.slotsOnly();
				if (!pending(this.exchange).add(slots)) {
					ReactiveRateLimitSupport.this.flow.end(slots, CallEnd.abandoned(), false);
				}
			}
		}


	}

	/**
	 * Returns a parameter's value from the query string or, in a form, from the body (which the handler
	 * can still read: the exchange keeps the form it parsed).
	 */
	private static Mono<String> parameter(ServerWebExchange exchange, String name) {
		String value = exchange.getRequest().getQueryParams().getFirst(name);
		if (value != null) {
			return Mono.just(value);
		}
		MediaType contentType = exchange.getRequest().getHeaders().getContentType();
		if (contentType == null || !MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(contentType)) {
			return Mono.empty();
		}
		return exchange.getFormData().mapNotNull((form) -> form.getFirst(name));
	}

	private static void writeHeaders(ServerHttpResponse response, HttpHeaders headers) {
		HttpHeaders written = response.getHeaders();
		HeaderFields.forEach(headers, written::set);
	}

	/**
	 * Writes an entity as the whole response: its status, headers and body, the body with the first
	 * codec that writes it in a media type the request accepts.
	 */
	@SuppressWarnings("unchecked")
	private Mono<Void> write(ServerWebExchange exchange, ResponseEntity<?> entity) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(entity.getStatusCode());
		writeHeaders(response, entity.getHeaders());
		Object body = entity.getBody();
		if (body == null) {
			return response.setComplete();
		}
		ResolvableType type = ResolvableType.forInstance(body);
		List<MediaType> candidates = ContentNegotiation.candidates(entity,
				exchange.getRequest().getHeaders().getFirst(HttpHeaders.ACCEPT));
		for (MediaType accepted : candidates) {
			for (HttpMessageWriter<?> writer : this.writers) {
				for (MediaType produced : producible(writer, type, accepted)) {
					if (accepted.isCompatibleWith(produced)) {
						return ((HttpMessageWriter<Object>) writer).write(Mono.just(body), type,
								produced.isConcrete() ? produced : accepted, response, Map.of());
					}
				}
			}
		}
		return Mono.error(new NotAcceptableStatusException(candidates));
	}

	/**
	 * Returns the media types a writer writes a body's type in, {@code accepted} itself when it names a
	 * concrete type the writer writes.
	 */
	private static List<MediaType> producible(HttpMessageWriter<?> writer, ResolvableType type, MediaType accepted) {
		if (!writer.canWrite(type, null)) {
			return List.of();
		}
		if (accepted.isConcrete()) {
			return writer.canWrite(type, accepted) ? List.of(accepted) : List.of();
		}
		return writer.getWritableMediaTypes(type);
	}

	/**
	 * Returns the path patterns of an application's functional routes, as rules match them: each route's paths under
	 * those of the routes it is nested in; for the warning of rules whose paths no handler maps.
	 * @param function the application's router function
	 * @return the patterns
	 */
	public static java.util.Set<String> routePatterns(RouterFunction<?> function) {
		return FunctionalRoutePaths.of(function);
	}

}
