package dev.ratelimit.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.DocumentationTranscripts.Transcript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guard that keeps the documentation's transcripts from drifting: every block of README.md and docs/*.md that
 * looks like a transcript (a {@code $ } command line, an HTTP status line, Spring Boot's failure report, a log line,
 * the sample gRPC client's output) names, on the line before its fence, the test that produces or checks it
 * ({@code <!-- checked by SampleApplicationTests -->}); that test exists in the project's test sources and reads the
 * page (its source names the file, and the marker's label if any), through {@link DocumentationTranscripts#text}. A
 * transcript no test can reproduce says why ({@code <!-- not-checked: <reason> -->}); the one there is is listed here.
 */
class DocumentationTranscriptsTests {

	private static final Path ROOT = Path.of("..");

	private static final Map<String, Path> TEST_SOURCES = testSources();

	static List<Path> documents() {
		return ReadmeExamplesTests.documents();
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("documents")
	void everyTranscriptIsCheckedByATestThatReadsIt(Path document) {
		assertThat(problems(document)).isEmpty();
	}

	@Test
	void findsTheTranscripts() {
		List<Transcript> transcripts = documents().stream()
			.flatMap((document) -> DocumentationTranscripts.read(document).stream())
			.toList();
		assertThat(transcripts).hasSizeGreaterThanOrEqualTo(30);
		assertThat(transcripts).extracting(Transcript::checker).contains("ReadmeQuickStartTests",
				"SampleApplicationTests", "SampleGatewayApplicationTests", "SampleGrpcApplicationTests");
		// a transcript left unchecked is the exception, with its reason: concurrent calls whose order races
		assertThat(transcripts).filteredOn((transcript) -> transcript.notChecked() != null)
			.extracting(Transcript::toString)
			.containsExactly("sample-app.md:113");
	}

	@Test
	void failsOnATranscriptWithoutAMarkerOrWithAMarkerNamingNoTestOfThePage(@TempDir Path directory)
			throws IOException {
		Path page = directory.resolve("page.md");
		Files.writeString(page, """
				Unmarked:

				```
				$ curl -s localhost:8080/api/hello
				Hello
				```

				A test that does not exist:

				<!-- checked by NoSuchTests -->
				```
				HTTP/1.1 429
				```

				A test that does not read this page:

				<!-- checked by ReadmeQuickStartTests -->
				```
				WARN d.ratelimit.Some : a log line
				```

				Code is not a transcript:

				```java
				class Hello {
				}
				```
				""");
		assertThat(problems(page)).containsExactly(
				"page.md:4: a transcript that no test checks: write the test, then <!-- checked by <its class> --> "
						+ "on the line before the fence",
				"page.md:12: no test class NoSuchTests in the project's test sources",
				"page.md:19: ReadmeQuickStartTests does not read page.md");
	}

	static List<String> problems(Path document) {
		List<String> problems = new ArrayList<>();
		String page = document.getFileName().toString();
		for (Transcript transcript : DocumentationTranscripts.read(document)) {
			if (transcript.notChecked() != null) {
				continue;
			}
			if (transcript.checker() == null) {
				problems.add(transcript + ": a transcript that no test checks: write the test, then "
						+ "<!-- checked by <its class> --> on the line before the fence");
				continue;
			}
			Path source = TEST_SOURCES.get(transcript.checker());
			if (source == null) {
				problems.add(transcript + ": no test class " + transcript.checker() + " in the project's test sources");
				continue;
			}
			String code = read(source);
			if (!code.contains("\"" + page + "\"")) {
				problems.add(transcript + ": " + transcript.checker() + " does not read " + page);
			}
			else if (transcript.label() != null && !code.contains("\"" + transcript.label() + "\"")) {
				problems.add(transcript + ": " + transcript.checker() + " does not read the block labelled "
						+ transcript.label());
			}
		}
		return problems;
	}

	private static Map<String, Path> testSources() {
		try (Stream<Path> files = Files.walk(ROOT)) {
			return files
				.filter((path) -> path.toString().replace('\\', '/').contains("/src/test/java/"))
				.filter((path) -> path.getFileName().toString().endsWith("Tests.java"))
				.collect(Collectors.toMap((path) -> path.getFileName().toString().replace(".java", ""),
						Function.identity(), (first, second) -> first));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String read(Path source) {
		try {
			return Files.readString(source);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
