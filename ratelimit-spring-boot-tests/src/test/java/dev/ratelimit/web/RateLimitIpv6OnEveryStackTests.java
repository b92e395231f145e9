package dev.ratelimit.web;

import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * IPv6 clients charge the budget of their network, on every stack: addresses of one /56 (the default
 * ratelimit.ipv6-prefix-length) share it, whatever the last 72 bits; the prefix applies to the address found
 * behind the trusted proxies; an IPv4-mapped address is its IPv4 address. The trusted proxy is 127.0.0.2,
 * whose X-Forwarded-For names the IPv6 clients.
 */
class RateLimitIpv6OnEveryStackTests {

	private static final StackApps apps = new StackApps(Map.of("ratelimit.trusted-proxies", "127.0.0.2/32",
			"ratelimit.rules.addr.paths", "/address", "ratelimit.rules.addr.limit", "1", "ratelimit.rules.addr.window",
			"1m"));

	@AfterAll
	static void stop() {
		apps.close();
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void givesTheAddressesOfOneNetworkOneBudget(WebStack stack) {
		StackApp app = apps.on(stack);
		assertThat(app.getFrom("127.0.0.2", "/address", "X-Forwarded-For", "2001:db8:1:201::5").status())
			.isEqualTo(200);
		// another address of the same /56: no fresh budget
		assertThat(app.getFrom("127.0.0.2", "/address", "X-Forwarded-For", "2001:db8:1:2ff:aaaa:bbbb:cccc:dddd").status())
			.isEqualTo(429);
		assertThat(app.getFrom("127.0.0.2", "/address", "X-Forwarded-For", "[2001:db8:1:2aa::9]:443").status())
			.isEqualTo(429);
		// the next /56 is another network
		assertThat(app.getFrom("127.0.0.2", "/address", "X-Forwarded-For", "2001:db8:1:300::1").status())
			.isEqualTo(200);
		assertThat(app.redisKeys()).contains(app.keyPrefix() + ":fixed:addr:ip:2001:db8:1:200::/56",
				app.keyPrefix() + ":fixed:addr:ip:2001:db8:1:300::/56");
	}

	@ParameterizedTest
	@EnumSource(WebStack.class)
	void readsAnIpv4MappedAddressAsIpv4(WebStack stack) {
		StackApp app = apps.on(stack);
		assertThat(app.getFrom("127.0.0.2", "/address", "X-Forwarded-For", "::ffff:203.0.113.7").status())
			.isEqualTo(200);
		assertThat(app.getFrom("127.0.0.2", "/address", "X-Forwarded-For", "203.0.113.7").status()).isEqualTo(429);
		assertThat(app.redisKeys()).contains(app.keyPrefix() + ":fixed:addr:ip:203.0.113.7");
	}

}
