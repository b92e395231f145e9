package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import dev.ratelimit.autoconfigure.client.RateLimitClientProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Renders docs/properties.md from the configuration metadata the build writes (the javadoc of
 * {@link RateLimitProperties} and additional-spring-configuration-metadata.json) and compares it with the
 * file, so that the documented properties cannot drift from the code. With {@code -Dratelimit.docs.write=true}
 * it rewrites the file instead of failing.
 */
class PropertiesDocumentationTests {

	static final String REGENERATE = "./mvnw -B -pl ratelimit-spring-boot-autoconfigure -am test"
			+ " -Dtest=PropertiesDocumentationTests -Dsurefire.failIfNoSpecifiedTests=false -Dratelimit.docs.write=true";

	private static final Path METADATA = Path.of("target", "classes", "META-INF", "spring-configuration-metadata.json");

	private static final Path DOCUMENT = Path.of("..", "docs", "properties.md");

	@Test
	void documentsEveryPropertyOfTheMetadata() throws IOException {
		String expected = render(JsonPath.read(METADATA.toFile(), "$.properties"));
		Path written = Path.of("target", "properties.md");
		Files.writeString(written, expected);
		if (Boolean.getBoolean("ratelimit.docs.write")) {
			Files.writeString(DOCUMENT, expected);
		}
		String actual = Files.exists(DOCUMENT) ? Files.readString(DOCUMENT).replace("\r\n", "\n") : "";
		assertThat(actual)
			.as("docs/properties.md differs from the configuration metadata; the expected content is in %s; "
					+ "regenerate it with%n%s%n", written.toAbsolutePath(), REGENERATE)
			.isEqualTo(expected);
	}

	@Test
	void rendersEveryRuleProperty() throws IOException {
		String rendered = render(JsonPath.read(METADATA.toFile(), "$.properties"));
		assertThat(rendered).contains("| `ratelimit.rules.*.paths` | list of strings |  |",
				"| `ratelimit.rules.*.missing-key` | `client-address`, `reject`, `skip` | `client-address` |",
				"| `ratelimit.filter.order` | int | `-101` |",
				"| `ratelimit.default-algorithm` | `fixed-window`, `sliding-window-log`, `sliding-window-counter`, "
						+ "`token-bucket`, `gcra` | `fixed-window` |");
	}

	@Test
	void describesEveryPropertyOfARule() throws IOException {
		List<String> names = JsonPath.read(METADATA.toFile(), "$.properties[*].name");
		Map<String, Class<?>> maps = Map.of("ratelimit.rules.*.", RateLimitProperties.Rule.class, "ratelimit.clients.*.",
				RateLimitClientProperties.Client.class);
		maps.forEach((prefix, leaf) -> {
			// the type's own fields and those it inherits (limits, algorithm, limit, window, burst)
			for (Class<?> type = leaf; type != Object.class; type = type.getSuperclass()) {
				for (java.lang.reflect.Field field : type.getDeclaredFields()) {
					String kebab = field.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
					assertThat(names).as("additional-spring-configuration-metadata.json describes %s", field.getName())
						.contains(prefix + kebab);
				}
			}
		});
	}

	static String render(List<Map<String, Object>> properties) {
		StringBuilder out = new StringBuilder();
		out.append("<!-- Generated from the configuration metadata by PropertiesDocumentationTests: do not edit.\n")
			.append("     Change the javadoc of RateLimitProperties or additional-spring-configuration-metadata.json, then:\n")
			.append("     ")
			.append(REGENERATE)
			.append(" -->\n");
		out.append("# Properties\n\n");
		out.append("[← README](../README.md) · [rules](rules.md)\n\n");
		out.append("Every property the starter reads, generated from the configuration metadata of its build. In\n")
			.append("`ratelimit.rules.*.<property>`, `*` is the rule's name (`ratelimit.rules.api.limit`; a name with a\n")
			.append("dot goes in brackets: `ratelimit.rules[orders.v2].limit`); in `ratelimit.clients.*.<property>`, the\n")
			.append("partner's. Durations are written `500ms`, `30s`,\n")
			.append("`1m`, `1h` or `PT1H`. An unknown `ratelimit.*` property stops the application at startup.\n\n");
		out.append("| property | type | default | description |\n");
		out.append("|---|---|---|---|\n");
		properties.stream()
			.sorted(Comparator.comparing((Map<String, Object> property) -> !name(property).startsWith("ratelimit."))
				.thenComparing(PropertiesDocumentationTests::name))
			.forEach((property) -> out.append("| `")
				.append(name(property))
				.append("` | ")
				.append(type((String) property.get("type")))
				.append(" | ")
				.append(defaultValue(property.get("defaultValue")))
				.append(" | ")
				.append(text((String) property.get("description")))
				.append(" |\n"));
		return out.toString();
	}

	private static String name(Map<String, Object> property) {
		return (String) property.get("name");
	}

	static String type(String type) {
		return switch (type) {
			case "java.lang.Boolean" -> "boolean";
			case "java.lang.Integer" -> "int";
			case "java.lang.Long" -> "long";
			case "java.lang.Double" -> "number";
			case "java.lang.String" -> "string";
			case "java.time.Duration" -> "duration";
			case "java.util.List<java.lang.String>" -> "list of strings";
			default -> enumValues(type);
		};
	}

	private static String enumValues(String type) {
		try {
			Class<?> candidate = Class.forName(type);
			if (candidate.isEnum()) {
				return Arrays.stream(candidate.getEnumConstants())
					.map((constant) -> "`" + ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-') + "`")
					.collect(Collectors.joining(", "));
			}
		}
		catch (ClassNotFoundException ex) {
			// a generic type: named below
		}
		// java.util.Map<java.lang.String,dev.ratelimit.autoconfigure.RateLimitProperties$Rule> -> Map<String, Rule>
		return "`" + type.replaceAll("[\\w.]*[.$]", "").replace(",", ", ") + "`";
	}

	private static String defaultValue(Object value) {
		if (value == null) {
			return "";
		}
		if (value instanceof Collection<?> values) {
			return values.isEmpty() ? "" : "`" + values.stream().map(String::valueOf).collect(Collectors.joining(",")) + "`";
		}
		return "`" + value + "`";
	}

	private static String text(String description) {
		return description.replace("\n", " ")
			.replace("|", "\\|")
			.replace("*", "\\*")
			.replace("_", "\\_")
			.replace("<", "\\<");
	}

}
