package dev.ratelimit.client;

import java.net.URI;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;
import org.springframework.web.client.support.RestClientAdapter;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.invoker.HttpServiceProxyFactory;

/**
 * The clients a partner's limit applies to, each built from the builder Spring Boot gives the application (and so
 * customized by the starter): a {@code RestClient}, a {@code WebClient}, and an HTTP interface client on a
 * {@code RestClient}. A test runs one case on each through {@code @EnumSource(ClientStack.class)}.
 */
enum ClientStack {

	REST_CLIENT, WEB_CLIENT, HTTP_INTERFACE;

	/** The path prefix of this stack's calls, so that each stack's partner budget and counts are its own. */
	String prefix(String test) {
		return test + "-" + name().toLowerCase().replace('_', '-');
	}

	/**
	 * Makes a {@code GET} call to a URL with a client of this stack from an application.
	 * @param context the application
	 * @param url the URL
	 * @return the partner's status
	 * @throws dev.ratelimit.RateLimitExceededException when the call gets no permit
	 */
	int call(ConfigurableApplicationContext context, String url) {
		try {
			return switch (this) {
				case REST_CLIENT -> context.getBean(RestClient.Builder.class).build().get().uri(url).retrieve()
					.toBodilessEntity().getStatusCode().value();
				case WEB_CLIENT -> context.getBean(WebClient.Builder.class).build().get().uri(url).retrieve()
					.toBodilessEntity().block().getStatusCode().value();
				case HTTP_INTERFACE -> HttpServiceProxyFactory
					.builderFor(RestClientAdapter.create(context.getBean(RestClient.Builder.class).baseUrl(url).build()))
					.build()
					.createClient(Partner.class)
					.exchange()
					.getStatusCode()
					.value();
			};
		}
		catch (RestClientResponseException ex) {
			return ex.getStatusCode().value();
		}
		catch (WebClientResponseException ex) {
			return ex.getStatusCode().value();
		}
	}

	/**
	 * Makes a {@code GET} call to a URL, handed to the client as it is (no template, no encoding), with a client of
	 * this stack from an application.
	 * @param context the application
	 * @param url the URL
	 * @return the partner's status
	 * @throws dev.ratelimit.RateLimitExceededException when the call gets no permit
	 */
	int call(ConfigurableApplicationContext context, URI url) {
		try {
			return switch (this) {
				case REST_CLIENT -> context.getBean(RestClient.Builder.class).build().get().uri(url).retrieve()
					.toBodilessEntity().getStatusCode().value();
				case WEB_CLIENT -> context.getBean(WebClient.Builder.class).build().get().uri(url).retrieve()
					.toBodilessEntity().block().getStatusCode().value();
				case HTTP_INTERFACE -> HttpServiceProxyFactory
					.builderFor(RestClientAdapter.create(context.getBean(RestClient.Builder.class).build()))
					.build()
					.createClient(Partner.class)
					.exchange(url)
					.getStatusCode()
					.value();
			};
		}
		catch (RestClientResponseException ex) {
			return ex.getStatusCode().value();
		}
		catch (WebClientResponseException ex) {
			return ex.getStatusCode().value();
		}
	}

	/** The partner, as an HTTP interface. */
	public interface Partner {

		@GetExchange
		ResponseEntity<Void> exchange();

		@GetExchange
		ResponseEntity<Void> exchange(URI url);

	}

}
