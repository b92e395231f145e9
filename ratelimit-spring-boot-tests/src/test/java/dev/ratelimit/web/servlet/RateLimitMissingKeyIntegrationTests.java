package dev.ratelimit.web.servlet;

import dev.ratelimit.testsupport.RateLimitFields;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a rule does with a request that lacks its key ({@code missing-key}), and with one whose key the
 * server cannot read: never unlimited for it.
 */
@SpringBootTest(classes = RateLimitTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.key-prefix=missing-key", "server.tomcat.max-parameter-count=5",
				"ratelimit.rules.keyed.paths=/keyed", "ratelimit.rules.keyed.limit=5",
				"ratelimit.rules.keyed.window=1m", "ratelimit.rules.keyed.key=header:X-Api-Key",
				"ratelimit.rules.keyed.missing-key=reject", "ratelimit.rules.param.paths=/param",
				"ratelimit.rules.param.limit=1", "ratelimit.rules.param.window=1m",
				"ratelimit.rules.param.key=param:token", "ratelimit.rules.param.missing-key=skip",
				"ratelimit.rules.tenant.paths=/tenant", "ratelimit.rules.tenant.limit=1",
				"ratelimit.rules.tenant.window=1m", "ratelimit.rules.tenant.key=header:X-Tenant" })
class RateLimitMissingKeyIntegrationTests extends RedisBackedWebTests {

	@Test
	void refusesARequestWithoutTheKeyWith400NamingIt() throws Exception {
		HttpResponse<String> refused = get(this.port, "/keyed");
		assertThat(refused.statusCode()).isEqualTo(400);
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(refused.headers().firstValue("Retry-After")).isEmpty();
		assertThat((String) JsonPath.read(refused.body(), "$.missingKey")).isEqualTo("header:X-Api-Key");
		assertThat((String) JsonPath.read(refused.body(), "$.detail")).contains("the header X-Api-Key");
		HttpResponse<String> keyed = get(this.port, "/keyed", "X-Api-Key", "key-1");
		assertThat(keyed.statusCode()).isEqualTo(200);
		assertThat(keyed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys).orElseThrow())
			.startsWith("\"keyed\";r=4;");
	}

	@Test
	void skipsTheRuleForARequestWithoutTheKey() throws Exception {
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> passed = get(this.port, "/param");
			assertThat(passed.statusCode()).isEqualTo(200);
			assertThat(passed.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys)).isEmpty();
		}
		assertThat(get(this.port, "/param?token=t1").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/param?token=t1").statusCode()).isEqualTo(429);
	}

	@Test
	void chargesTheClientAddressWhenTheParametersCannotBeParsed() throws Exception {
		// a malformed escape, then more parameters than the server accepts: neither may skip the rule
		assertThat(rawGet("/param?token=%zz")).isEqualTo(200);
		assertThat(rawGet("/param?token=%zz")).isEqualTo(429);
		assertThat(this.redis.keys(this.prefix + ":*:param:ip:127.0.0.1")).hasSize(1);
		assertThat(rawGet("/param?a=1&b=2&c=3&d=4&e=5&f=6&token=t9")).isEqualTo(429);
	}

	@Test
	void chargesTheClientAddressOfARequestWithoutTheKeyByDefault() throws Exception {
		assertThat(get(this.port, "/tenant").statusCode()).isEqualTo(200);
		assertThat(get(this.port, "/tenant").statusCode()).isEqualTo(429);
		assertThat(get(this.port, "/tenant", "X-Tenant", "acme").statusCode()).isEqualTo(200);
	}

	/** Sends a request line the JDK's client refuses to build, and returns the status. */
	private int rawGet(String target) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			OutputStream out = socket.getOutputStream();
			out.write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
				.getBytes(StandardCharsets.ISO_8859_1));
			out.flush();
			InputStream in = socket.getInputStream();
			String response = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
			return Integer.parseInt(response.substring(9, 12));
		}
	}

}
