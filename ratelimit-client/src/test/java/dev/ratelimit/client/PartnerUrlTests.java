package dev.ratelimit.client;

import java.net.URI;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A call's URL normalised once, as the partners' patterns compare it: every spelling of one URL reads the same, and a
 * pattern covers each of them.
 */
class PartnerUrlTests {

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			HTTP://API.Partner.Example/v1/orders                     | http://api.partner.example:80/v1/orders
			https://api.partner.example.:443/v1/orders?page=2        | https://api.partner.example:443/v1/orders
			https://user@api.partner.example/v1/orders               | https://api.partner.example:443/v1/orders
			http://bücher.example/v1                                 | http://xn--bcher-kva.example:80/v1
			http://BÜCHER.example./v1                                | http://xn--bcher-kva.example:80/v1
			http://b%C3%BCcher.example/v1                            | http://xn--bcher-kva.example:80/v1
			http://%61pi.partner.example/v1                          | http://api.partner.example:80/v1
			http://partner_api:8080/v1                               | http://partner_api:8080/v1
			http://Partner_API.:8080/v1                              | http://partner_api:8080/v1
			http://[::1]:8080/v1                                     | http://[0:0:0:0:0:0:0:1]:8080/v1
			http://[0000:0:0::0001]:8080/v1                          | http://[0:0:0:0:0:0:0:1]:8080/v1
			http://[2001:DB8::A]/v1                                  | http://[2001:db8:0:0:0:0:0:a]:80/v1
			http://[::ffff:127.0.0.1]:8080/v1                        | http://127.0.0.1:8080/v1
			http://host/a/./b/../c                                   | http://host:80/a/c
			http://host/a/b/..                                       | http://host:80/a/
			http://host/../../a                                      | http://host:80/a
			http://host//a///b                                       | http://host:80/a/b
			http://host/a//../b                                      | http://host:80/b
			http://host/%61%2D%7e%2e/%2F%3a                          | http://host:80/a-~./%2F%3A
			http://host/a/%2E%2E/b                                   | http://host:80/b
			http://host                                              | http://host:80/
			wss://stream.partner.example/v1                          | wss://stream.partner.example:443/v1
			ws://stream.partner.example/v1                           | ws://stream.partner.example:80/v1
			http://host:/x                                           | http://host:80/x
			""")
	void readsEverySpellingOfAUrlTheSameWay(String url, String normalised) {
		assertThat(PartnerUrl.of(URI.create(url))).hasToString(normalised);
	}

	@Test
	void aPatternCoversEverySpellingOfItsUrls() {
		UrlPattern unicode = UrlPattern.parse("https://Bücher.example./v1/**");
		assertThat(unicode.matches(url("https://xn--bcher-kva.example/v1/a"))).isTrue();
		assertThat(unicode.matches(url("https://XN--BCHER-KVA.EXAMPLE./v1/a"))).isTrue();
		UrlPattern ipv6 = UrlPattern.parse("http://[0:0:0:0:0:0:0:1]:8080/v1/**");
		assertThat(ipv6.matches(url("http://[::1]:8080/v1/a"))).isTrue();
		assertThat(ipv6.matches(url("http://[::2]:8080/v1/a"))).isFalse();
		UrlPattern path = UrlPattern.parse("http://partner_api:8080/v%31/orders/**");
		assertThat(path.matches(url("http://PARTNER_API:8080/v1/orders"))).isTrue();
		assertThat(path.matches(url("http://partner_api:8080/x/../v1/./orders/1"))).isTrue();
		assertThat(path.matches(url("http://partner_api:8080//v1//orders/%31"))).isTrue();
		assertThat(path.matches(url("http://partner_api:8080/%76%31/%6Frders"))).isTrue();
		assertThat(path.matches(url("http://partner_api:8080/v1/../v2/orders"))).isFalse();
		UrlPattern subdomains = UrlPattern.parse("https://*.Bücher.example/**");
		assertThat(subdomains.matches(url("https://eu.xn--bcher-kva.example./x"))).isTrue();
		assertThat(subdomains.matches(url("https://xn--bcher-kva.example/x"))).isFalse();
	}

	@Test
	void refusesAPatternWhoseHostIsNone() {
		assertThatIllegalArgumentException().isThrownBy(() -> UrlPattern.parse("http://[::g]/**"))
			.withMessageContaining("the host '[::g]' is no host name, IPv4 address or IPv6 literal in brackets");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> UrlPattern.parse("http://" + "a".repeat(64) + ".example/**"))
			.withMessageContaining("is no host name");
	}

	private static PartnerUrl url(String url) {
		return PartnerUrl.of(URI.create(url));
	}

}
