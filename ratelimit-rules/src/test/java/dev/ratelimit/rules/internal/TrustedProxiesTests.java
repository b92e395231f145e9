package dev.ratelimit.rules.internal;

import java.net.InetAddress;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import dev.ratelimit.rules.CidrBlock;
import dev.ratelimit.rules.ForwardedHeader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TrustedProxiesTests {

	private final List<CidrBlock> trusted = List.of(CidrBlock.parse("10.0.0.0/8"),
			CidrBlock.parse("2001:db8:ffff::/48"));

	private final TrustedProxies resolver = new TrustedProxies(this.trusted, ForwardedHeader.X_FORWARDED_FOR);

	@Test
	void takesTheRemoteAddressOfAnUntrustedPeerWhateverItsHeadersSay() {
		MockHttpServletRequest request = request("198.51.100.4");
		request.addHeader("X-Forwarded-For", "203.0.113.1");
		request.addHeader("Forwarded", "for=203.0.113.2");
		assertThat(resolve(this.resolver, request)).isEqualTo("198.51.100.4");
	}

	@Test
	void givesAnUntrustedPeersAddressInItsCanonicalTextReusingTheServersWhenItIsThat() {
		String remote = new String("198.51.100.4");
		assertThat(this.resolver.resolve(remote, (name) -> List.of())).isSameAs(remote);
		assertThat(this.resolver.resolve(" 198.51.100.4 ", (name) -> List.of())).isEqualTo("198.51.100.4");
		assertThat(this.resolver.resolve("0.0.0.0", (name) -> List.of())).isEqualTo("0.0.0.0");
		assertThat(this.resolver.resolve("255.255.255.255", (name) -> List.of())).isEqualTo("255.255.255.255");
		assertThat(this.resolver.resolve("::ffff:198.51.100.4", (name) -> List.of())).isEqualTo("198.51.100.4");
		assertThat(this.resolver.resolve("[2001:db8::5]", (name) -> List.of())).isEqualTo("2001:db8:0:0:0:0:0:5");
	}

	@Test
	void takesTheRightMostUntrustedAddressBehindTrustedProxies() {
		MockHttpServletRequest request = request("10.0.0.1");
		request.addHeader("X-Forwarded-For", "1.1.1.1, 203.0.113.7, 10.9.9.9");
		assertThat(resolve(this.resolver, request)).isEqualTo("203.0.113.7");
	}

	@Test
	void readsEveryXForwardedForHeaderLineInOrder() {
		MockHttpServletRequest request = request("10.0.0.1");
		request.addHeader("X-Forwarded-For", "203.0.113.7");
		request.addHeader("X-Forwarded-For", "203.0.113.8");
		assertThat(resolve(this.resolver, request)).isEqualTo("203.0.113.8");
	}

	@Test
	void readsOnlyForwardedWhenTheProxiesWriteThat() {
		TrustedProxies forwarded = new TrustedProxies(this.trusted, ForwardedHeader.FORWARDED);
		MockHttpServletRequest request = request("2001:db8:ffff::1");
		request.addHeader("Forwarded", "for=192.0.2.60;proto=http;by=203.0.113.43, for=\"[2001:db8:ffff::9]:80\"");
		request.addHeader("X-Forwarded-For", "6.6.6.6");
		assertThat(resolve(forwarded, request)).isEqualTo("192.0.2.60");
	}

	@Test
	void neverReadsForwardedWhenTheProxiesWriteXForwardedFor() {
		MockHttpServletRequest request = request("10.0.0.1");
		request.addHeader("Forwarded", "for=6.6.6.6");
		assertThat(resolve(this.resolver, request)).isEqualTo("10.0.0.1");
		request.addHeader("X-Forwarded-For", "203.0.113.7");
		assertThat(resolve(this.resolver, request)).isEqualTo("203.0.113.7");
	}

	@Test
	void neverReadsWhatTheClientWroteLeftOfItsOwnAddress() {
		MockHttpServletRequest request = request("10.0.0.1");
		request.addHeader("X-Forwarded-For", "junk, ".repeat(40) + "203.0.113.7, 10.0.0.2");
		assertThat(resolve(this.resolver, request)).isEqualTo("203.0.113.7");
		TrustedProxies forwarded = new TrustedProxies(this.trusted, ForwardedHeader.FORWARDED);
		MockHttpServletRequest withForwarded = request("10.0.0.1");
		withForwarded.addHeader("Forwarded", "proto=https, for=203.0.113.8");
		assertThat(resolve(forwarded, withForwarded)).isEqualTo("203.0.113.8");
	}

	@Test
	void stripsPortsFromForwardedAddresses() {
		MockHttpServletRequest request = request("10.0.0.1");
		request.addHeader("X-Forwarded-For", "203.0.113.7:4711");
		assertThat(resolve(this.resolver, request)).isEqualTo("203.0.113.7");
		request = request("10.0.0.1");
		request.addHeader("X-Forwarded-For", "[2001:db8::5]:4711");
		assertThat(resolve(this.resolver, request)).isEqualTo("2001:db8:0:0:0:0:0:5");
	}

	@Test
	void takesTheLeftMostAddressWhenEveryHopIsTrusted() {
		MockHttpServletRequest request = request("10.0.0.1");
		request.addHeader("X-Forwarded-For", "10.0.0.3, 10.0.0.2");
		assertThat(resolve(this.resolver, request)).isEqualTo("10.0.0.3");
	}

	@Test
	void fallsBackToTheRemoteAddressForMalformedValues() {
		// malformed where it is read: the right-most hop, or any hop a trusted proxy vouched for
		for (String value : List.of("evil", "203.0.113.1, <script>", "999.1.1.1", "", "example.com", ".:",
				"203.0.113.1, junk, 10.0.0.9", "10.0.0.2,".repeat(40))) {
			MockHttpServletRequest request = request("10.0.0.1");
			request.addHeader("X-Forwarded-For", value);
			assertThat(resolve(this.resolver, request)).as(value).isEqualTo("10.0.0.1");
		}
		MockHttpServletRequest forwarded = request("10.0.0.1");
		forwarded.addHeader("Forwarded", "for=203.0.113.8;proto=https, proto=https");
		assertThat(resolve(new TrustedProxies(this.trusted, ForwardedHeader.FORWARDED), forwarded))
			.isEqualTo("10.0.0.1");
	}

	@Test
	void parsesCidrBlocksAndRefusesNamesAndBadPrefixes() {
		assertThat(CidrBlock.parse("192.168.0.0/16").contains(CidrBlock.parseAddress("192.168.44.1"))).isTrue();
		assertThat(CidrBlock.parse("192.168.0.0/16").contains(CidrBlock.parseAddress("192.169.0.1"))).isFalse();
		assertThat(CidrBlock.parse("0.0.0.0/0").contains(CidrBlock.parseAddress("8.8.8.8"))).isTrue();
		assertThat(CidrBlock.parse("127.0.0.1").contains(CidrBlock.parseAddress("127.0.0.2"))).isFalse();
		assertThat(CidrBlock.parse("::1/128").contains(CidrBlock.parseAddress("::1"))).isTrue();
		assertThat(CidrBlock.parse("10.0.0.0/8").contains(CidrBlock.parseAddress("::1"))).isFalse();
		assertThat(CidrBlock.parseAddress(".:")).isNull();
		assertThat(CidrBlock.parseAddress(".dead:beef")).isNull();
		assertThatIllegalArgumentException().isThrownBy(() -> CidrBlock.parse("localhost"))
			.withMessageContaining("not an IP address or CIDR block");
		assertThatIllegalArgumentException().isThrownBy(() -> CidrBlock.parse("10.0.0.0/33"))
			.withMessageContaining("use 0 to 32");
		assertThatIllegalArgumentException().isThrownBy(() -> CidrBlock.parse("::/129"))
			.withMessageContaining("use 0 to 128");
		assertThatIllegalArgumentException().isThrownBy(() -> CidrBlock.parse("10.0.0.0/x"))
			.withMessageContaining("invalid prefix length");
	}

	@Test
	void readsIpv4LiteralsAsTheGeneralParserDoesAndNothingElse() throws Exception {
		for (String literal : List.of("0.0.0.0", "1.2.3.4", "10.0.0.1", "127.0.0.1", "192.168.255.254",
				"255.255.255.255", " 8.8.4.4 ", "[203.0.113.9]")) {
			String bare = literal.strip().replace("[", "").replace("]", "");
			assertThat(CidrBlock.parseAddress(literal)).as(literal).isEqualTo(InetAddress.getByName(bare));
			assertThat(CidrBlock.parseAddress(literal).getHostAddress()).as(literal).isEqualTo(bare);
		}
		for (String notOne : List.of("256.0.0.1", "1.2.3.999", "1.2.3", "1.2.3.4.5", "1..2.3", ".1.2.3", "1.2.3.4.",
				"1.2.3.4a", "1.2.3.-4", "1.2.3.1234", "١.2.3.4", "localhost", "1.2.3.4/8")) {
			assertThat(CidrBlock.parseAddress(notOne)).as(notOne).isNull();
		}
	}

	private static MockHttpServletRequest request(String remoteAddress) {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/");
		request.setRemoteAddr(remoteAddress);
		return request;
	}

	private static String resolve(TrustedProxies resolver, MockHttpServletRequest request) {
		return resolver.resolve(request.getRemoteAddr(), (name) -> Collections.list(request.getHeaders(name)));
	}

	@Test
	void chargesAnIpv6AddressUnderItsNetworkOfThePrefixLength() {
		TrustedProxies grouped = new TrustedProxies(this.trusted, ForwardedHeader.X_FORWARDED_FOR, 56);
		assertThat(grouped.budgetAddress("2001:db8:1:2ff:aaaa:bbbb:cccc:dddd")).isEqualTo("2001:db8:1:200::/56");
		assertThat(grouped.budgetAddress("2001:db8:1:200:0:0:0:1")).isEqualTo("2001:db8:1:200::/56");
		assertThat(new TrustedProxies(this.trusted, ForwardedHeader.X_FORWARDED_FOR, 64)
			.budgetAddress("2001:db8:1:2ff:aaaa::1")).isEqualTo("2001:db8:1:2ff::/64");
		assertThat(new TrustedProxies(this.trusted, ForwardedHeader.X_FORWARDED_FOR, 48)
			.budgetAddress("2001:0:0:1::1")).isEqualTo("2001::/48");
		assertThat(new TrustedProxies(this.trusted, ForwardedHeader.X_FORWARDED_FOR, 16).budgetAddress("fe80::1"))
			.isEqualTo("fe80::/16");
		// one address each at 128; IPv4 and what is no address stand as they are
		assertThat(this.resolver.budgetAddress("2001:db8::1")).isEqualTo("2001:db8::1");
		assertThat(grouped.budgetAddress("203.0.113.7")).isEqualTo("203.0.113.7");
		assertThat(grouped.budgetAddress("unknown")).isEqualTo("unknown");
	}

	@Test
	void groupsTheAddressFoundBehindTheTrustedProxiesAndReadsMappedAddressesAsIpv4() {
		TrustedProxies grouped = new TrustedProxies(this.trusted, ForwardedHeader.X_FORWARDED_FOR, 56);
		MockHttpServletRequest request = request("2001:db8:ffff::1");
		request.addHeader("X-Forwarded-For", "2001:db8:77:1234::99");
		assertThat(grouped.budgetAddress(resolve(grouped, request))).isEqualTo("2001:db8:77:1200::/56");
		MockHttpServletRequest mapped = request("10.0.0.1");
		mapped.addHeader("X-Forwarded-For", "::ffff:203.0.113.7");
		assertThat(grouped.budgetAddress(resolve(grouped, mapped))).isEqualTo("203.0.113.7");
		// the proxy itself is matched by its full address, not its network
		assertThat(grouped.isTrustedProxy("2001:db8:ffff::1")).isTrue();
		assertThat(grouped.isTrustedProxy("2001:db8:fffe::1")).isFalse();
	}

	@Test
	void refusesAPrefixLengthOutsideOneTo128() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new TrustedProxies(this.trusted, ForwardedHeader.X_FORWARDED_FOR, 0))
			.withMessageContaining("ipv6PrefixLength must be 1 to 128");
	}

}
