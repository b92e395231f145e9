package dev.ratelimit.sample;

import dev.ratelimit.testsupport.RateLimitFields;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisServerProcess;
import dev.ratelimit.testsupport.RedisTestServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample application as the build packaged it after {@code spring-boot:process-aot}, started with
 * {@code -Dspring.aot.enabled=true}: its bean definitions come from the generated initializers, not from
 * classpath scanning and conditions, and the rules still limit. Run by failsafe in the {@code verify} phase,
 * after the jar exists (see the sample's pom).
 */
class SampleApplicationAotTests {

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private static Process application;

	private static Path log;

	private static int port;

	@BeforeAll
	static void startTheAotProcessedJar() throws IOException {
		Path jar = jarFile();
		assertThat(jar).as("the jar that spring-boot:repackage wrote after process-aot").isRegularFile();
		port = RedisServerProcess.freePort();
		log = Files.createTempFile("sample-aot-", ".log");
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Dspring.aot.enabled=true", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(),
				"--server.port=" + port, "--server.address=127.0.0.1",
				"--spring.data.redis.url=" + RedisTestServer.shared().url(), "--sample.embedded-redis.enabled=false",
				"--ratelimit.key-prefix=aot-" + UUID.randomUUID().toString().substring(0, 8),
				"--spring.main.banner-mode=off"));
		application = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
			assertThat(application.isAlive()).as("the application is running; its log: %s", read(log)).isTrue();
			return get("/actuator/health") != null;
		});
	}

	@AfterAll
	static void stopTheApplication() throws Exception {
		if (application != null) {
			application.destroy();
			if (!application.waitFor(20, TimeUnit.SECONDS)) {
				application.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		Files.deleteIfExists(log);
	}

	@Test
	void startsFromTheGeneratedInitializers() throws IOException {
		assertThat(read(log)).contains("Starting AOT-processed SampleApplication");
	}

	@Test
	void shipsTheStartersHintsInTheNativeImageMetadata() throws IOException {
		try (ZipFile jar = new ZipFile(jarFile().toFile())) {
			ZipEntry entry = jar.getEntry("META-INF/native-image/dev.ratelimit/sample-app/reachability-metadata.json");
			assertThat(entry).as("the reachability metadata process-aot wrote").isNotNull();
			String metadata = new String(jar.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
			List<String> resources = JsonPath.read(metadata, "$.resources[*].glob");
			List<String> types = JsonPath.read(metadata, "$.reflection[*].type");
			assertThat(resources).contains("META-INF/ratelimit/scripts/*.lua");
			assertThat(types).contains("dev.ratelimit.RateLimited", "dev.ratelimit.RateLimited$List",
					"dev.ratelimit.RateLimited$Limit");
		}
	}

	@Test
	void refusesTheSixthGreetingWithinTheMinute() throws Exception {
		List<Integer> statuses = new ArrayList<>();
		HttpResponse<String> last = null;
		for (int i = 0; i < 6; i++) {
			last = get("/api/greeting");
			statuses.add(last.statusCode());
		}
		assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429);
		assertThat(last.headers().firstValue("RateLimit-Policy").map(RateLimitFields::withoutPartitionKeys))
			.hasValue("\"greeting\";q=5;w=60");
		assertThat(last.headers().firstValue("RateLimit").map(RateLimitFields::withoutPartitionKeys))
			.hasValueSatisfying(
				(value) -> assertThat(value).startsWith("\"greeting\";r=0;t="));
		assertThat(last.headers().firstValue("Retry-After")).isPresent();
		assertThat(last.body()).contains("\"violatedPolicies\":[\"greeting\"]");
	}

	@Test
	void limitsAnAnnotatedHandler() throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			statuses.add(get("/reports").statusCode());
		}
		assertThat(statuses).containsExactly(200, 200, 429);
	}

	private static Path jarFile() {
		return Path.of(System.getProperty("sample.jar", "target/sample-app.jar"));
	}

	private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(30))
			.build();
		try {
			return http.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (ConnectException ex) {
			return null;
		}
	}

	private static String read(Path file) throws IOException {
		return Files.readString(file);
	}

}
