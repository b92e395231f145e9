package dev.ratelimit.rules.internal;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.web.util.pattern.PathPatternParser;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whether a rule's path pattern and a handler's share a path, as {@link UnmappedRules} tells it.
 */
class UnmappedRulesTests {

	@ParameterizedTest(name = "{0} and {1}: {2}")
	@CsvSource({ "/api/**, /api/{name}, true", "/api/greeting/**, /api/{name}, true", "/api/greeting, /api/{name}, true",
			"/api/*, /api/{id:\\d+}, true", "/files/{*path}, /files, true", "/**, /anything/{x}, true",
			"/*.json, /report.json, true", "/apii/**, /api/{name}, false", "/apy, /api, false",
			"/api/greeting, /api/{id:\\d+}, false", "/sign-in, /sign-up, false" })
	void tellsWhetherARuleAndAHandlerShareAPath(String rule, String handler, boolean overlap) {
		assertThat(UnmappedRules.overlap(PathPatternParser.defaultInstance.parse(rule),
				PathPatternParser.defaultInstance.parse(handler)))
			.isEqualTo(overlap);
	}

}
