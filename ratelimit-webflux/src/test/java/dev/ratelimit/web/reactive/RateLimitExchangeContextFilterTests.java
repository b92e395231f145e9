package dev.ratelimit.web.reactive;

import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitExchangeContextFilterTests {

	private final AtomicBoolean methodRulesReadRequests = new AtomicBoolean();

	private final RateLimitExchangeContextFilter filter = new RateLimitExchangeContextFilter(registry());

	@Test
	void putsTheExchangeInTheReactorContextOnceALimitedBeanMethodReadsRequests() {
		this.methodRulesReadRequests.set(true);
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/orders"));
		assertThat(exchangeInContext(exchange)).isSameAs(exchange);
	}

	@Test
	void leavesTheReactorContextAloneWhileNoLimitedBeanMethodReadsRequests() {
		MockServerWebExchange exchange = MockServerWebExchange.from(MockServerHttpRequest.get("/orders"));
		assertThat(exchangeInContext(exchange)).isNull();
		// read per exchange: a bean method whose rules are built later counts from then on
		this.methodRulesReadRequests.set(true);
		assertThat(exchangeInContext(exchange)).isSameAs(exchange);
	}

	private @Nullable ServerWebExchange exchangeInContext(ServerWebExchange exchange) {
		AtomicReference<@Nullable ServerWebExchange> seen = new AtomicReference<>();
		WebFilterChain chain = (filtered) -> Mono.deferContextual((context) -> {
			seen.set(ServerWebExchangeContextFilter.getExchange(context).orElse(null));
			return Mono.empty();
		});
		this.filter.filter(exchange, chain).block();
		return seen.get();
	}

	/** A registry that answers only whether a limited bean method reads requests, the one question the filter asks. */
	private RateLimitRuleRegistry registry() {
		return (RateLimitRuleRegistry) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RateLimitRuleRegistry.class }, (proxy, method, args) -> {
					if (method.getName().equals("methodRulesReadRequests")) {
						return this.methodRulesReadRequests.get();
					}
					throw new UnsupportedOperationException(method.getName());
				});
	}

}
