package dev.ratelimit.testsupport;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * What {@link DocumentationTranscripts#assertShows} leaves out of a comparison, and what it does not.
 */
class TranscriptComparisonTests {

	private static final String DOCUMENTED = """
			$ curl -si localhost:8080/api/hello
			HTTP/1.1 200
			RateLimit: "api";r=2;t=60
			Date: Sun, 06 Dec 2026 11:19:41 GMT

			{"blockedUntil":"2026-11-30T23:52:10.312Z","rules":[{"name":"api"},...]}
			""";

	@Test
	void leavesOutTheDateAnInstantTrailingSpacesAndWhatADocumentElides() {
		assertThatNoException().isThrownBy(() -> DocumentationTranscripts.assertShows(DOCUMENTED, """
				$ curl -si localhost:8080/api/hello
				HTTP/1.1 200\s
				RateLimit: "api";r=2;t=60
				Date: Mon, 07 Dec 2026 08:00:00 GMT

				{"blockedUntil":"2026-12-06T14:31:45.182234366Z","rules":[{"name":"api"},{"name":"other"}]}

				"""));
	}

	@Test
	void failsOnAnyOtherDifference() {
		assertThatExceptionOfType(AssertionFailedError.class).isThrownBy(() -> DocumentationTranscripts.assertShows(
				DOCUMENTED, DOCUMENTED.replace("r=2;t=60", "r=2;t=59")))
			.withMessageContaining("The real output:")
			.withMessageContaining("r=2;t=59");
		assertThatExceptionOfType(AssertionFailedError.class).isThrownBy(() -> DocumentationTranscripts.assertShows(
				DOCUMENTED, DOCUMENTED.replace("[{\"name\":\"api\"},", "[{\"name\":\"other\"},")));
		assertThatExceptionOfType(AssertionFailedError.class)
			.isThrownBy(() -> DocumentationTranscripts.assertShows(DOCUMENTED, DOCUMENTED + "HTTP/1.1 429\n"));
	}

}
