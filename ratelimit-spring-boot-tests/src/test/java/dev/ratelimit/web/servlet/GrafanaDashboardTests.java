package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import dev.ratelimit.testsupport.RedisBinary;
import dev.ratelimit.testsupport.RedisServerProcess;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.client.RestClient;

import static dev.ratelimit.web.servlet.RateLimitTestApplication.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard of docs/grafana against a real scrape: an application with Micrometer's Prometheus registry
 * serves traffic that produces every outcome the dashboard shows, and every metric and label selector of every
 * panel's query (and of its rule variable) selects series of {@code /actuator/prometheus}, so that no panel shows
 * "no data" because of a wrong name or tag.
 */
class GrafanaDashboardTests {

	private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "ratelimit-dashboard.json");

	/** A metric name of ours and its selector, if any. */
	private static final Pattern SELECTOR = Pattern.compile("\\b(ratelimit_[a-z0-9_]+)(?:\\{([^}]*)\\})?");

	private static final Pattern MATCHER = Pattern.compile("(\\w+)\\s*(=~|!~|!=|=)\\s*\"([^\"]*)\"");

	private static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? \\S+.*$");

	private static final Pattern LABEL = Pattern.compile("(\\w+)=\"((?:[^\"\\\\]|\\\\.)*)\"");

	@Test
	void everyQueryOfTheDashboardSelectsSeriesOfARealScrape() throws Exception {
		RedisServerProcess redis = RedisServerProcess.start(RedisBinary.find());
		try (ConfigurableApplicationContext app = new SpringApplicationBuilder(RateLimitTestApplication.class)
			.properties("server.port=0", "spring.data.redis.url=" + redis.url(), "ratelimit.timeout=1s",
					"management.endpoints.web.exposure.include=prometheus",
					"ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=10", "ratelimit.rules.api.window=1m",
					"ratelimit.rules.shadowed.paths=/shadowed", "ratelimit.rules.shadowed.limit=1",
					"ratelimit.rules.shadowed.window=1m", "ratelimit.rules.shadowed.shadow=true",
					"ratelimit.rules.soft.paths=/sliding", "ratelimit.rules.soft.limit=1",
					"ratelimit.rules.soft.window=1m", "ratelimit.rules.soft.enforce=false",
					"ratelimit.rules.keyed.paths=/keyed", "ratelimit.rules.keyed.limit=5",
					"ratelimit.rules.keyed.window=1m", "ratelimit.rules.keyed.key=header:X-Api-Key",
					"ratelimit.rules.keyed.missing-key=skip",
					"ratelimit.clients.self.urls=http://127.0.0.1:*/search", "ratelimit.clients.self.limit=1",
					"ratelimit.clients.self.window=1s", "ratelimit.clients.self.max-wait=10s")
			.run()) {
			int port = ((WebServerApplicationContext) app).getWebServer().getPort();
			for (int i = 0; i < 12; i++) {
				get(port, "/api/items");
			}
			for (String path : List.of("/shadowed", "/shadowed", "/sliding", "/sliding", "/keyed")) {
				get(port, path);
			}
			RestClient partner = app.getBean(RestClient.Builder.class).build();
			for (int i = 0; i < 2; i++) {
				partner.get().uri("http://127.0.0.1:" + port + "/search").retrieve().toBodilessEntity();
			}
			// Redis gone: the request meets the failure mode (fail-open), an outcome of its own
			redis.stop();
			assertThat(get(port, "/keyed", "X-Api-Key", "a-key").statusCode()).isEqualTo(200);
			HttpResponse<String> scrape = get(port, "/actuator/prometheus");
			assertThat(scrape.statusCode()).isEqualTo(200);
			List<Series> series = series(scrape.body());

			List<String> queries = queries();
			assertThat(queries).hasSizeGreaterThanOrEqualTo(10);
			List<String> selectors = new ArrayList<>();
			for (String query : queries) {
				Matcher selector = SELECTOR.matcher(query.replace("$rule", ".*"));
				while (selector.find()) {
					String name = selector.group(1);
					String labels = (selector.group(2) != null) ? selector.group(2) : "";
					selectors.add(selector.group());
					assertThat(series).as("series of %s in %s", selector.group(), query)
						.anySatisfy((one) -> assertThat(one.matches(name, labels)).isTrue());
				}
			}
			assertThat(selectors).as("selectors of the dashboard")
				.anyMatch((selector) -> selector.startsWith("ratelimit_decisions_near_limit_total"))
				.anyMatch((selector) -> selector.contains("outcome=\"error\""))
				.anyMatch((selector) -> selector.startsWith("ratelimit_client_waits_total"))
				.anyMatch((selector) -> selector.startsWith("ratelimit_redis_available"));
		}
		finally {
			redis.stop();
		}
	}

	/** Every query of the dashboard: each panel's targets and the rule variable's. */
	private static List<String> queries() throws IOException {
		String dashboard = Files.readString(DASHBOARD);
		List<String> queries = new ArrayList<>(JsonPath.read(dashboard, "$.panels[*].targets[*].expr"));
		queries.addAll(JsonPath.read(dashboard, "$.templating.list[?(@.type == 'query')].definition"));
		return queries;
	}

	private static List<Series> series(String scrape) {
		List<Series> all = new ArrayList<>();
		for (String line : scrape.split("\n")) {
			Matcher series = SERIES.matcher(line);
			if (line.startsWith("#") || !series.matches()) {
				continue;
			}
			Map<String, String> labels = new HashMap<>();
			Matcher label = LABEL.matcher((series.group(2) != null) ? series.group(2) : "");
			while (label.find()) {
				labels.put(label.group(1), label.group(2));
			}
			all.add(new Series(series.group(1), labels));
		}
		return all;
	}

	/** One series of the scrape. */
	private record Series(String name, Map<String, String> labels) {

		boolean matches(String metric, String selector) {
			if (!this.name.equals(metric)) {
				return false;
			}
			Matcher matcher = MATCHER.matcher(selector);
			while (matcher.find()) {
				String value = this.labels.get(matcher.group(1));
				String wanted = matcher.group(3);
				boolean ok = switch (matcher.group(2)) {
					case "=" -> wanted.equals(value);
					case "!=" -> !wanted.equals(value);
					case "=~" -> value != null && value.matches(wanted);
					default -> value == null || !value.matches(wanted);
				};
				if (!ok) {
					return false;
				}
			}
			return true;
		}

	}

}
