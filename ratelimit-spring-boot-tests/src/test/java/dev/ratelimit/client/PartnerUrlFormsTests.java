package dev.ratelimit.client;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.testsupport.RedisTestServer;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.http.client.reactive.HttpComponentsClientHttpConnector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A call to a partner is charged to the partner's budget whatever form its URL takes, on each client built from
 * Spring Boot's builders, against a real HTTP server on 127.0.0.1 and a real Redis: with a limit of 3, three calls
 * through forms of the URL other than the configured pattern's reach the partner and the fourth is refused without
 * leaving. The clients run on Apache HttpClient 5 (which, unlike the JDK's client and Reactor Netty, calls hosts with
 * {@code _}) with a resolver that answers 127.0.0.1 for every name, so that hosts no DNS knows ({@code partner_api},
 * {@code bücher.example}) reach the local server.
 */
class PartnerUrlFormsTests {

	private static final int LIMIT = 3;

	private static PartnerServer partner;

	private static ConfigurableApplicationContext application;

	/**
	 * The forms of a partner's URL: the pattern configured (its {@code %d} the server's port, its path under the
	 * form's prefix) and the calls that must be charged to it, each under the prefix, the last one refused.
	 */
	enum Form {

		HOST_CASE("http://localhost:%d/%s/v1/**", "http://LocalHost:%d/%s/v1/a", "http://LOCALHOST:%d/%s/v1/b",
				"http://localHOST:%d/%s/v1/c", "http://Localhost:%d/%s/v1/d"),

		TRAILING_DOT("http://localhost:%d/%s/v1/**", "http://localhost.:%d/%s/v1/a", "http://LOCALHOST.:%d/%s/v1/b",
				"http://localhost.:%d/%s/v1/c", "http://localhost.:%d/%s/v1/d"),

		PATTERN_WITH_TRAILING_DOT("http://localhost.:%d/%s/v1/**", "http://localhost:%d/%s/v1/a",
				"http://localhost.:%d/%s/v1/b", "http://localhost:%d/%s/v1/c", "http://localhost:%d/%s/v1/d"),

		UNICODE_HOST("http://bücher.example:%d/%s/v1/**", "http://xn--bcher-kva.example:%d/%s/v1/a",
				"http://BÜCHER.example:%d/%s/v1/b", "http://bücher.example.:%d/%s/v1/c",
				"http://XN--BCHER-KVA.example:%d/%s/v1/d"),

		ASCII_PATTERN_OF_A_UNICODE_HOST("http://xn--bcher-kva.example:%d/%s/v1/**", "http://bücher.example:%d/%s/v1/a",
				"http://Bücher.Example:%d/%s/v1/b", "http://xn--bcher-kva.example:%d/%s/v1/c",
				"http://bücher.example:%d/%s/v1/d"),

		IPV6_LITERAL("http://[::ffff:127.0.0.1]:%d/%s/v1/**", "http://[0:0:0:0:0:ffff:7f00:1]:%d/%s/v1/a",
				"http://[::FFFF:7F00:0001]:%d/%s/v1/b", "http://127.0.0.1:%d/%s/v1/c", "http://[::ffff:7f00:1]:%d/%s/v1/d"),

		DOT_SEGMENTS("http://127.0.0.1:%d/%s/v1/**", "http://127.0.0.1:%d/%s/./v1/a",
				"http://127.0.0.1:%d/%s/x/../v1/b", "http://127.0.0.1:%d/%s/v2/../v1/./c",
				"http://127.0.0.1:%d/%s/v1/../v1/d"),

		DOUBLE_SLASHES("http://127.0.0.1:%d/%s/v1/**", "http://127.0.0.1:%d/%s//v1/a", "http://127.0.0.1:%d//%s/v1/b",
				"http://127.0.0.1:%d/%s/v1//c", "http://127.0.0.1:%d/%s///v1/d"),

		PERCENT_ENCODED_UNRESERVED("http://127.0.0.1:%d/%s/v1/**", "http://127.0.0.1:%d/%s/%%76%%31/a",
				"http://127.0.0.1:%d/%s/%%2E/v1/b", "http://127.0.0.1:%d/%s/x/%%2e%%2e/v1/c",
				"http://127.0.0.1:%d/%s/%%76%%31/d"),

		UNDERSCORE_HOST("http://partner_api:%d/%s/v1/**", "http://partner_api:%d/%s/v1/a",
				"http://PARTNER_API:%d/%s/v1/b", "http://partner_api.:%d/%s/./v1/c", "http://partner_api:%d/%s/v1/d");

		private final String pattern;

		private final List<String> calls;

		Form(String pattern, String... calls) {
			this.pattern = pattern;
			this.calls = List.of(calls);
		}

		String prefix(ClientStack stack) {
			return "forms-" + name().toLowerCase().replace('_', '-') + "-" + stack.name().toLowerCase().replace('_', '-');
		}

		String pattern(ClientStack stack, int port) {
			return this.pattern.formatted(port, prefix(stack));
		}

		List<URI> calls(ClientStack stack, int port) {
			return this.calls.stream().map((call) -> URI.create(call.formatted(port, prefix(stack)))).toList();
		}

	}

	static Stream<Arguments> cases() {
		List<Arguments> cases = new ArrayList<>();
		for (ClientStack stack : ClientStack.values()) {
			for (Form form : Form.values()) {
				cases.add(Arguments.of(stack, form));
			}
		}
		return cases.stream();
	}

	@BeforeAll
	static void start() throws Exception {
		partner = new PartnerServer();
		int port = Integer.parseInt(partner.url("").replaceAll(".*:", ""));
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.data.redis.url", RedisTestServer.shared().url());
		properties.put("ratelimit.key-prefix", "forms-" + UUID.randomUUID().toString().substring(0, 8));
		properties.put("ratelimit.timeout", "5s");
		for (ClientStack stack : ClientStack.values()) {
			for (Form form : Form.values()) {
				String prefix = "ratelimit.clients." + form.prefix(stack) + ".";
				properties.put(prefix + "urls", form.pattern(stack, port));
				properties.put(prefix + "limit", Integer.toString(LIMIT));
				properties.put(prefix + "window", "1h");
				properties.put(prefix + "algorithm", "fixed-window");
			}
		}
		application = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.properties(properties)
			.run();
	}

	@AfterAll
	static void stop() {
		if (application != null) {
			application.close();
		}
		partner.close();
	}

	@ParameterizedTest(name = "{0} {1}")
	@MethodSource("cases")
	void everyFormOfThePartnersUrlIsChargedToItsBudget(ClientStack stack, Form form) {
		int port = Integer.parseInt(partner.url("").replaceAll(".*:", ""));
		List<URI> calls = form.calls(stack, port);
		for (URI call : calls.subList(0, LIMIT)) {
			assertThat(stack.call(application, call)).as(call.toString()).isEqualTo(200);
		}
		URI last = calls.get(LIMIT);
		RateLimitExceededException refused = catchThrowableOfType(RateLimitExceededException.class,
				() -> stack.call(application, last));
		assertThat(refused).as(last + " is refused").isNotNull();
		assertThat(refused.getRule()).isEqualTo(form.prefix(stack));
		assertThat(partner.received(form.prefix(stack))).isEqualTo(LIMIT);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		CloseableHttpClient loopbackHttpClient() {
			return HttpClients.custom()
				.setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
					.setDnsResolver(new LoopbackDns())
					.build())
				// its retries of 429 and 503 would go out beneath the budget's interceptor: exact counts here
				.disableAutomaticRetries()
				.build();
		}

		@Bean
		CloseableHttpAsyncClient loopbackHttpAsyncClient() {
			return HttpAsyncClients.custom()
				.setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
					.setDnsResolver(new LoopbackDns())
					.build())
				.disableAutomaticRetries()
				.build();
		}

		@Bean
		HttpComponentsClientHttpRequestFactory loopbackRequestFactory(CloseableHttpClient client) {
			return new HttpComponentsClientHttpRequestFactory(client);
		}

		@Bean
		RestClientCustomizer loopbackRestClient(HttpComponentsClientHttpRequestFactory requestFactory) {
			// the gateway's customizer (Spring Cloud Gateway Server MVC is on the test class path) sets the one bean
			return (builder) -> builder.requestFactory(requestFactory);
		}

		@Bean
		WebClientCustomizer loopbackWebClient(CloseableHttpAsyncClient client) {
			return (builder) -> builder.clientConnector(new HttpComponentsClientHttpConnector(client));
		}

	}

	/** Resolves every name to 127.0.0.1 (no DNS in the test, and the partner is there), and IP literals to themselves. */
	static final class LoopbackDns implements DnsResolver {

		@Override
		public InetAddress[] resolve(String host) throws UnknownHostException {
			if (host.startsWith("[") || Character.isDigit(host.charAt(0))) {
				// a literal: parsed, never looked up
				return new InetAddress[] { InetAddress.getByName(host.replace("[", "").replace("]", "")) };
			}
			return new InetAddress[] { InetAddress.getByAddress(host, new byte[] { 127, 0, 0, 1 }) };
		}

		@Override
		public String resolveCanonicalHostname(String host) {
			return host;
		}

	}

}
