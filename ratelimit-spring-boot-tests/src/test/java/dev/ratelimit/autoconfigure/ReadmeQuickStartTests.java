package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.StringReader;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.ratelimit.redis.FixedWindowRateLimiter;
import dev.ratelimit.testsupport.CurlRequest;
import dev.ratelimit.testsupport.DocumentationExamples;
import dev.ratelimit.testsupport.DocumentationExamples.Block;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.web.WebStack;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's Quick start as a newcomer runs it: an application made of the README's own properties block and
 * controller, read from README.md and compiled as written, on a real Tomcat on a random port with the test Redis,
 * answers the four calls of the README's transcript as the README shows them (the {@code Date} header aside). The
 * clock stands still, as it does for a loop that runs within the second.
 */
class ReadmeQuickStartTests {

	private static final Path README = Path.of("..", "README.md");

	private static final String COMMAND = "for i in 1 2 3 4; do curl -si localhost:8080/api/hello; echo; done";

	@Test
	void answersTheFourCallsAsTheReadmeShows(@TempDir Path classes) throws Exception {
		List<Block> controller = DocumentationExamples.read(README, "java");
		assertThat(controller).hasSize(1);
		assertThat(DocumentationExamples.compile(controller, classes)).isEmpty();
		try (URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() },
				getClass().getClassLoader());
				ConfigurableApplicationContext application = new SpringApplicationBuilder(QuickStart.class,
						loader.loadClass("HelloController"))
					.web(WebApplicationType.SERVLET)
					.properties(properties())
					.run()) {
			int port = ((WebServerApplicationContext) application).getWebServer().getPort();
			StringBuilder transcript = new StringBuilder("$ " + COMMAND + "\n");
			for (int i = 0; i < 4; i++) {
				transcript.append(CurlRequest.get(port, "/api/hello").send().included()).append('\n');
			}
			DocumentationTranscripts.assertShows(
					DocumentationTranscripts.text(README, "ReadmeQuickStartTests", null), transcript.toString());
		}
	}

	/**
	 * The README's properties as written, but for the Redis, which is the test's, and what the test class path
	 * needs: a free port, a key prefix of its own, no Spring Security (on the class path for other tests), a timeout that
	 * a loaded machine does not reach.
	 */
	private static Map<String, Object> properties() throws IOException {
		List<Block> blocks = DocumentationExamples.read(README, "properties");
		assertThat(blocks).hasSize(1);
		Properties readme = new Properties();
		readme.load(new StringReader(blocks.get(0).text()));
		assertThat(readme).containsKeys("spring.data.redis.host", "spring.data.redis.port");
		Map<String, Object> properties = new LinkedHashMap<>();
		readme.stringPropertyNames().forEach((name) -> properties.put(name, readme.getProperty(name)));
		properties.put("spring.data.redis.host", RedisTestServer.shared().host());
		properties.put("spring.data.redis.port", RedisTestServer.shared().port());
		properties.put("server.port", "0");
		properties.put("server.address", "127.0.0.1");
		properties.put("ratelimit.key-prefix", "quick-start-" + UUID.randomUUID().toString().substring(0, 8));
		properties.put("spring.autoconfigure.exclude", String.join(",", WebStack.WITHOUT_SECURITY));
		// a slow moment on a loaded machine must not turn a decision into fail-open, which sends no headers
		properties.put("ratelimit.timeout", "5s");
		return properties;
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class QuickStart {

		@Bean
		MutableClock testClock() {
			return new MutableClock(Instant.parse("2026-12-06T11:19:41Z"));
		}

		@Bean
		FixedWindowRateLimiter clockedFixedWindowRateLimiter(StringRedisTemplate redis, RateLimitProperties properties,
				MutableClock clock) {
			return new FixedWindowRateLimiter(redis, properties.getKeyPrefix(), clock);
		}

	}

}
