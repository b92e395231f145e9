package dev.ratelimit.autoconfigure;

import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.ratelimit.testsupport.ClosedPort;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup errors of docs/rules.md, and the warning of docs/operations.md about a Redis that does not answer, as
 * Spring Boot prints them: each documented configuration is started, and the
 * failure analysis Boot would print (the first of the application's analyzers that answers) is compared with the
 * page's block.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupErrorsDocumentationTests {

	private static final Path RULES = Path.of("..", "docs", "rules.md");

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.url=" + RedisTestServer.shared().url());

	@Test
	void aCostAboveTheLimitIsReportedAsTheDocsShow() throws IOException {
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(RULES, "StartupErrorsDocumentationTests",
				"cost"), report("failure-analysis/cost.properties"));
	}

	@Test
	void aPathWithoutItsSlashIsReportedAsTheDocsShow() throws IOException {
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(RULES, "StartupErrorsDocumentationTests",
				"relative-path"), report("failure-analysis/relative-path.properties"));
	}

	@Test
	void aMisspeltPropertyIsReportedAsTheDocsShow() throws IOException {
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(RULES, "StartupErrorsDocumentationTests",
				"typo"), report("failure-analysis/typo.properties"));
	}

	@Test
	void aDurationThatDoesNotParseIsReportedAsTheDocsShow() throws IOException {
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(RULES, "StartupErrorsDocumentationTests",
				"duration"), report("failure-analysis/duration.properties"));
	}

	@Test
	void aRedisThatDoesNotAnswerIsReportedAsTheDocsShow(CapturedOutput output) {
		int port = ClosedPort.reserve();
		try (ConfigurableApplicationContext application = new SpringApplicationBuilder(RedisOnly.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port)
			.run()) {
			List<String> warnings = output.getOut().lines().filter((line) -> line.contains("Redis did not answer")).toList();
			assertThat(warnings).hasSize(1);
			// the documented application looks for Redis where it usually is
			DocumentationTranscripts.assertShows(DocumentationTranscripts.text(Path.of("..", "docs", "operations.md"),
					"StartupErrorsDocumentationTests", "redis-down"), warnings.get(0).replace(":" + port + " ", ":6379 ") + "\n");
		}
	}

	/** Starts the web auto-configuration with a properties file, shown as the application's own. */
	private String report(String resource) throws IOException {
		List<PropertySource<?>> file = new PropertiesPropertySourceLoader().load(resource, new ClassPathResource(resource));
		return report(file).replace(resource, "application.properties");
	}

	private String report(List<PropertySource<?>> sources) {
		StandardEnvironment environment = new StandardEnvironment();
		sources.forEach(environment.getPropertySources()::addFirst);
		String[] report = new String[1];
		this.runner.withInitializer((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
			.run((context) -> {
				assertThat(context).hasFailed();
				report[0] = DocumentationTranscripts.failureReport(Objects.requireNonNull(context.getStartupFailure()),
						environment);
			});
		return report[0];
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class })
	static class RedisOnly {

	}

}
