package dev.ratelimit.web.reactive;

import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import reactor.core.publisher.Mono;

import dev.ratelimit.rules.flow.RoutePatterns;

import org.springframework.core.io.Resource;
import org.springframework.http.HttpMethod;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;

/**
 * The path patterns of functional routes, read with the visitors of router functions and request predicates, for the
 * startup warning of a rule no handler maps.
 */
final class FunctionalRoutePaths implements RouterFunctions.Visitor, RequestPredicates.Visitor {

	private final RoutePatterns routes = new RoutePatterns();

	private FunctionalRoutePaths() {
	}

	/**
	 * Reads the path patterns a router function maps.
	 * @param function the router function
	 * @return its patterns, nests' prefixes included
	 */
	static Set<String> of(RouterFunction<?> function) {
		FunctionalRoutePaths reader = new FunctionalRoutePaths();
		function.accept(reader);
		return reader.routes.patterns();
	}

	@Override
	public void startNested(RequestPredicate predicate) {
		this.routes.startPredicate();
		predicate.accept(this);
		this.routes.nest();
	}

	@Override
	public void endNested(RequestPredicate predicate) {
		this.routes.endNest();
	}

	@Override
	public void route(RequestPredicate predicate, HandlerFunction<?> handlerFunction) {
		this.routes.startPredicate();
		predicate.accept(this);
		this.routes.route();
	}

	@Override
	public void resources(Function<ServerRequest, Mono<Resource>> lookupFunction) {
		// static resources: the warning says they may serve a rule's paths
	}

	@Override
	public void attributes(Map<String, Object> attributes) {
	}

	@Override
	public void unknown(RouterFunction<?> routerFunction) {
		this.routes.unknownRoute();
	}

	@Override
	public void method(Set<HttpMethod> methods) {
	}

	@Override
	public void path(String pattern) {
		this.routes.path(pattern);
	}

	@Override
	@SuppressWarnings("removal") // the visitor must still implement it while the predicate exists
	public void pathExtension(String extension) {
	}

	@Override
	public void header(String name, String value) {
	}

	@Override
	public void queryParam(String name, String value) {
	}

	@Override
	public void version(String version) {
	}

	@Override
	public void startAnd() {
	}

	@Override
	public void and() {
	}

	@Override
	public void endAnd() {
	}

	@Override
	public void startOr() {
	}

	@Override
	public void or() {
	}

	@Override
	public void endOr() {
	}

	@Override
	public void startNegate() {
	}

	@Override
	public void endNegate() {
	}

	@Override
	public void unknown(RequestPredicate predicate) {
		this.routes.unknown();
	}

}
