package dev.ratelimit.client;

import java.net.URI;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The URL patterns of partners' limits: scheme, host (or its subdomains), port and path, never the query.
 */
class UrlPatternTests {

	@Test
	void matchesSchemeHostDefaultPortAndPath() {
		UrlPattern pattern = UrlPattern.parse("https://api.partner.example/v2/**");
		assertThat(pattern.matches(PartnerUrl.of(URI.create("https://api.partner.example/v2/orders?page=2")))).isTrue();
		assertThat(pattern.matches(PartnerUrl.of(URI.create("https://API.Partner.example:443/v2")))).isTrue();
		assertThat(pattern.matches(PartnerUrl.of(URI.create("https://api.partner.example/v1/orders")))).isFalse();
		assertThat(pattern.matches(PartnerUrl.of(URI.create("http://api.partner.example/v2/orders")))).isFalse();
		assertThat(pattern.matches(PartnerUrl.of(URI.create("https://api.partner.example:8443/v2/orders")))).isFalse();
		assertThat(pattern.matches(PartnerUrl.of(URI.create("https://other.example/v2/orders")))).isFalse();
	}

	@Test
	void aHostWithoutPathCoversEveryPathAndAStarCoversSubdomains() {
		assertThat(UrlPattern.parse("http://127.0.0.1:8080").matches(PartnerUrl.of(URI.create("http://127.0.0.1:8080/a/b")))).isTrue();
		assertThat(UrlPattern.parse("http://127.0.0.1:*/a/**").matches(PartnerUrl.of(URI.create("http://127.0.0.1:61234/a/b")))).isTrue();
		assertThat(UrlPattern.parse("http://127.0.0.1:*/a/**").matches(PartnerUrl.of(URI.create("http://127.0.0.1/a/b")))).isTrue();
		UrlPattern subdomains = UrlPattern.parse("https://*.partner.example/**");
		assertThat(subdomains.matches(PartnerUrl.of(URI.create("https://eu.api.partner.example/x")))).isTrue();
		assertThat(subdomains.matches(PartnerUrl.of(URI.create("https://partner.example/x")))).isFalse();
		assertThat(subdomains.matches(PartnerUrl.of(URI.create("https://notpartner.example/x")))).isFalse();
	}

	@Test
	void refusesPatternsItCannotReadSayingHowToWriteThem() {
		assertThatIllegalArgumentException().isThrownBy(() -> UrlPattern.parse("api.partner.example/**"))
			.withMessageContaining("https://api.partner.example/**");
		assertThatIllegalArgumentException().isThrownBy(() -> UrlPattern.parse("ftp://partner.example/"))
			.withMessageContaining("http or https");
		assertThatIllegalArgumentException().isThrownBy(() -> UrlPattern.parse("https://partner.example:x/"))
			.withMessageContaining("port");
		assertThatIllegalArgumentException().isThrownBy(() -> UrlPattern.parse("https://partner.example/search?q=*"))
			.withMessageContaining("leave out the query");
		assertThatIllegalArgumentException().isThrownBy(() -> UrlPattern.parse("https://api*.example/"))
			.withMessageContaining("*. and a domain");
	}

}
