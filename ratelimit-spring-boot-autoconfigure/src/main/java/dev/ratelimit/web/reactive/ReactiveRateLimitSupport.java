package dev.ratelimit.web.reactive;

import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

import dev.ratelimit.web.ClientAddressResolver;
import dev.ratelimit.web.internal.ContentNegotiation;
import dev.ratelimit.web.PlanSource;
import dev.ratelimit.web.RateLimitEnforcer.RequestKeys;
import dev.ratelimit.web.RateLimitEnforcer;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.RateLimitRejection;
import dev.ratelimit.web.RateLimitRejectionHandler;
import dev.ratelimit.web.RateLimitRule;
import dev.ratelimit.web.RateLimitRules;
import dev.ratelimit.web.RateLimitVerdict;
import dev.ratelimit.web.RuleKey;

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
import org.springframework.web.server.ServerWebExchange;

/**
 * Applies rules to WebFlux exchanges, for the {@link RateLimitWebFilter} and the
 * {@link RateLimitHandlerWebFilter} alike: reads each rule's key from the exchange without blocking,
 * has the {@link RateLimitEnforcer} decide asynchronously, sets the rate-limit headers of every rule
 * applied to the exchange so far, and answers a refused exchange with the
 * {@link RateLimitRejectionHandler}'s response, written through the application's codecs.
 *
 * @since 0.1.0
 */
public final class ReactiveRateLimitSupport {

	private static final String APPLIED = ReactiveRateLimitSupport.class.getName() + ".applied";

	/** Marks an exchange from an allowed client address: it skips every rule. */
	private static final String ALLOWED = ReactiveRateLimitSupport.class.getName() + ".allowed";

	private final RateLimitRules rules;

	private final RateLimitEnforcer enforcer;

	private final ClientAddressResolver addresses;

	private final Function<String, ReactiveRateLimitKeyResolver> keyResolvers;

	private final Map<String, ReactiveRateLimitKeyResolver> resolvedKeyResolvers = new ConcurrentHashMap<>();

	private final Function<String, ReactiveRateLimitCondition> conditions;

	private final Map<String, ReactiveRateLimitCondition> resolvedConditions = new ConcurrentHashMap<>();

	private final RateLimitHeaders headers;

	private final RateLimitRejectionHandler rejections;

	private final List<HttpMessageWriter<?>> writers;

	private final List<HandlerMapping> handlerMappings;

	/**
	 * Creates the support.
	 * @param rules the rules in force
	 * @param enforcer decides requests under the rules
	 * @param addresses resolves client addresses
	 * @param keyResolvers finds the key-resolver bean of a name (or alias), for {@code bean:<name>} keys
	 * @param headers builds the rate-limit headers
	 * @param rejections builds the responses to refused requests
	 * @param writers the application's codecs' writers, for the bodies of refusals
	 * @param handlerMappings find the handler of an exchange, for the rules of annotated handlers
	 */
	public ReactiveRateLimitSupport(RateLimitRules rules, RateLimitEnforcer enforcer, ClientAddressResolver addresses,
			Function<String, ReactiveRateLimitKeyResolver> keyResolvers, RateLimitHeaders headers,
			RateLimitRejectionHandler rejections, List<HttpMessageWriter<?>> writers,
			List<? extends HandlerMapping> handlerMappings) {
		this(rules, enforcer, addresses, keyResolvers, (name) -> {
			throw new IllegalStateException("No condition bean named " + name);
		}, headers, rejections, writers, handlerMappings);
	}

	/**
	 * Creates the support, with the condition beans rules may name.
	 * @param rules the rules in force
	 * @param enforcer decides requests under the rules
	 * @param addresses resolves client addresses
	 * @param keyResolvers finds the key-resolver bean of a name (or alias), for {@code bean:<name>} keys
	 * @param conditions finds the condition bean of a name, for {@code condition=bean:<name>}
	 * @param headers builds the rate-limit headers
	 * @param rejections builds the responses to refused requests
	 * @param writers the application's codecs' writers, for the bodies of refusals
	 * @param handlerMappings find the handler of an exchange, for the rules of annotated handlers
	 */
	public ReactiveRateLimitSupport(RateLimitRules rules, RateLimitEnforcer enforcer, ClientAddressResolver addresses,
			Function<String, ReactiveRateLimitKeyResolver> keyResolvers,
			Function<String, ReactiveRateLimitCondition> conditions, RateLimitHeaders headers,
			RateLimitRejectionHandler rejections, List<HttpMessageWriter<?>> writers,
			List<? extends HandlerMapping> handlerMappings) {
		this.conditions = conditions;
		this.rules = rules;
		this.enforcer = enforcer;
		this.addresses = addresses;
		this.keyResolvers = keyResolvers;
		this.headers = headers;
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
		ServerHttpRequest request = exchange.getRequest();
		if (this.enforcer.screensAddresses()) {
			switch (this.enforcer.screen(clientAddress(request))) {
				case DENIED -> {
					return write(exchange,
							this.rejections.handle(RateLimitRejection.denied(request.getMethod().name(), request.getPath().value())))
						.thenReturn(false);
				}
				case ALLOWED -> {
					exchange.getAttributes().put(ALLOWED, Boolean.TRUE);
					return Mono.just(true);
				}
				case CHECKED -> {
					// the rules decide
				}
			}
		}
		return apply(exchange, this.rules.matchBeforeAuthentication(request.getMethod().name(), path(request)));
	}

	/**
	 * Applies the rules that run after authentication, for the {@link RateLimitHandlerWebFilter}: those
	 * keyed by {@code principal}, then those of the exchange's handler.
	 * @param exchange the exchange
	 * @return whether the exchange may go on; when not, its response is written
	 */
	Mono<Boolean> applyAfterAuthentication(ServerWebExchange exchange) {
		if (exchange.getAttribute(ALLOWED) != null) {
			return Mono.just(true);
		}
		ServerHttpRequest request = exchange.getRequest();
		String method = request.getMethod().name();
		PathContainer path = path(request);
		if (!this.rules.hasHandlerRules()) {
			return apply(exchange, this.rules.matchAfterAuthentication(method, path, null));
		}
		return handler(exchange).filter(HandlerMethod.class::isInstance)
			.map((handler) -> this.rules.matchAfterAuthentication(method, path, (HandlerMethod) handler))
			.switchIfEmpty(Mono.fromSupplier(() -> this.rules.matchAfterAuthentication(method, path, null)))
			.flatMap((applicable) -> apply(exchange, applicable));
	}

	private Mono<Object> handler(ServerWebExchange exchange) {
		return Flux.fromIterable(this.handlerMappings)
			.concatMap((mapping) -> mapping.getHandler(exchange))
			.next()
			// a request no handler takes, or one its mapping refuses, meets only the path rules
			.onErrorResume((ex) -> Mono.empty());
	}

	/**
	 * Decides an exchange under rules and writes what it needs: the headers, and when it is refused,
	 * the whole response.
	 */
	private Mono<Boolean> apply(ServerWebExchange exchange, List<RateLimitRule> matched) {
		if (matched.stream().noneMatch((rule) -> rule.condition() != null)) {
			return decide(exchange, matched);
		}
		return Flux.fromIterable(matched)
			.concatMap((rule) -> (rule.condition() == null) ? Mono.just(rule) : Mono
				.defer(() -> this.resolvedConditions.computeIfAbsent(rule.condition(), this.conditions).applies(exchange))
				.onErrorResume((ex) -> {
					RateLimitRules.conditionFailed(rule, ex);
					return Mono.just(true);
				})
				.defaultIfEmpty(true)
				.filter(Boolean::booleanValue)
				.map((applies) -> rule))
			.collectList()
			.flatMap((applicable) -> decide(exchange, applicable));
	}

	private Mono<Boolean> decide(ServerWebExchange exchange, List<RateLimitRule> applicable) {
		if (applicable.isEmpty()) {
			return Mono.just(true);
		}
		ServerHttpRequest request = exchange.getRequest();
		// budgets charge an IPv6 client under its network (ratelimit.ipv6-prefix-length)
		String clientAddress = this.addresses.budgetAddress(clientAddress(request));
		return keys(exchange, applicable, clientAddress).flatMap((keys) -> Mono
			.deferContextual((context) -> Mono.fromFuture(() -> inRequest(context, () -> this.enforcer
				.enforceAsync(() -> request.getMethod().name() + " " + request.getPath(), applicable, keys))))
			.transform((decision) -> EventLoops.backOn(exchange, decision))
			.flatMap((decided) -> {
				RateLimitVerdict verdict = decided.after(exchange.getAttribute(APPLIED));
				exchange.getAttributes().put(APPLIED, verdict.applied());
				ServerHttpResponse response = exchange.getResponse();
				writeHeaders(response, this.headers.of(verdict));
				if (verdict.allowed()) {
					if (!decided.counted().isEmpty()) {
						// taken now, settled once the response's final status is known, before it is sent (an error
						// the handler throws is the 500 WebFlux writes); a response that is never committed (the
						// client went away) keeps its charges, as on the servlet stack
						response.beforeCommit(() -> Mono.fromFuture(() -> this.enforcer.settleAsync(decided.counted(),
								(response.getStatusCode() != null) ? response.getStatusCode().value() : 200)));
					}
					return Mono.just(true);
				}
				return write(exchange, this.rejections.handle(
						RateLimitRejection.of(request.getMethod().name(), request.getPath().value(), verdict)))
					.thenReturn(false);
			}));
	}

	/**
	 * Asks for a decision with the request's server observation (from its Reactor context) current, so that the
	 * decisions' observations are its children; the scope opens and closes on the calling thread. For the
	 * reactive entry points: the WebFlux filters and Spring Cloud Gateway's rate limiter.
	 * @param context the Reactor context of the request's chain
	 * @param call asks for the decision
	 * @param <T> what the call returns
	 * @return what the call returned
	 * @since 0.1.0
	 */
	public static <T> T inRequest(ContextView context, Supplier<T> call) {
		Object server = context.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
		return (server instanceof Observation observation) ? observation.scoped(call) : call.get();
	}

	/**
	 * Reads the key of every rule before the decision, so that the enforcer never waits for one: a value,
	 * none (the request lacks it), or the failure of reading it (which charges the client address).
	 */
	private Mono<RequestKeys> keys(ServerWebExchange exchange, List<RateLimitRule> applicable, String clientAddress) {
		Map<RateLimitRule, Object> values = new IdentityHashMap<>();
		List<Mono<?>> pending = new ArrayList<>(0);
		boolean plans = false;
		for (RateLimitRule rule : applicable) {
			plans |= rule.plan() instanceof PlanSource.Bean;
			RuleKey key = rule.key();
			if (key instanceof RuleKey.ClientAddress || key instanceof RuleKey.Header) {
				// read at once: no publisher needed
				String found = (key instanceof RuleKey.Header header)
						? exchange.getRequest().getHeaders().getFirst(header.name()) : clientAddress;
				if (found != null) {
					values.put(rule, found);
				}
				continue;
			}
			Mono<String> value;
			try {
				value = keyValue(rule, exchange, clientAddress);
			}
			catch (RuntimeException ex) {
				value = Mono.error(ex);
			}
			pending.add(value.doOnNext((found) -> values.put(rule, found))
				.onErrorResume((ex) -> {
					values.put(rule, (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex));
					return Mono.empty();
				}));
		}
		RequestKeys keys = requestKeys(exchange, values, clientAddress);
		if (pending.isEmpty() && !plans) {
			return Mono.just(keys);
		}
		// a plan resolver may read a database: it is asked away from the event loop, and answers from memory then
		Mono<Void> lookUps = Flux.fromIterable(applicable)
			.filter((rule) -> values.get(rule) instanceof String value && this.enforcer.needsPlanLookUp(rule, value))
			.concatMap((rule) -> (values.get(rule) instanceof String value)
					? Mono.fromRunnable(() -> this.enforcer.lookUpPlan(rule, value)).subscribeOn(Schedulers.boundedElastic())
					: Mono.empty())
			.then();
		return Flux.concat(pending).then(lookUps).thenReturn(keys);
	}

	private RequestKeys requestKeys(ServerWebExchange exchange, Map<RateLimitRule, Object> values,
			String clientAddress) {
		return new RequestKeys() {

			@Override
			public @Nullable String keyValue(RateLimitRule rule) {
				Object value = values.get(rule);
				if (value instanceof RuntimeException failure) {
					throw failure;
				}
				return (String) value;
			}

			@Override
			public String clientAddress() {
				return clientAddress;
			}

			@Override
			public @Nullable String header(String name) {
				return exchange.getRequest().getHeaders().getFirst(name);
			}

			@Override
			public boolean fromTrustedProxy() {
				// asked only by a rule with a plan header
				return ReactiveRateLimitSupport.this.addresses.isTrustedProxy(remoteAddress(exchange.getRequest()));
			}

		};
	}

	private Mono<String> keyValue(RateLimitRule rule, ServerWebExchange exchange, String clientAddress) {
		RuleKey key = rule.key();
		if (key instanceof RuleKey.ClientAddress) {
			return Mono.just(clientAddress);
		}
		if (key instanceof RuleKey.Header header) {
			return Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst(header.name()));
		}
		if (key instanceof RuleKey.Param param) {
			return parameter(exchange, param.name());
		}
		if (key instanceof RuleKey.Principal) {
			return exchange.getPrincipal().map(Principal::getName);
		}
		if (key instanceof RuleKey.Bean bean) {
			// a key resolver is application code: what it throws charges the client address
			return this.resolvedKeyResolvers.computeIfAbsent(bean.name(), this.keyResolvers).resolveKey(exchange);
		}
		return Mono.error(new IllegalStateException("Rate-limit rule '" + rule.name() + "' has a key ("
				+ key.spelling() + ") that this stack does not read"));
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

	private String clientAddress(ServerHttpRequest request) {
		return this.addresses.resolve(remoteAddress(request), (name) -> request.getHeaders().getOrEmpty(name));
	}

	private static String remoteAddress(ServerHttpRequest request) {
		InetSocketAddress remote = request.getRemoteAddress();
		if (remote == null) {
			return "";
		}
		return (remote.getAddress() != null) ? remote.getAddress().getHostAddress() : remote.getHostString();
	}

	/**
	 * Returns the path of a request as rules match it: the path within the application, as WebFlux's
	 * handler mappings match it.
	 */
	private static PathContainer path(ServerHttpRequest request) {
		return request.getPath().pathWithinApplication();
	}

	private static void writeHeaders(ServerHttpResponse response, HttpHeaders headers) {
		headers.forEach((name, values) -> response.getHeaders().set(name, String.join(", ", values)));
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

}
