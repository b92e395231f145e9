package dev.ratelimit.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.ratelimit.testsupport.DocumentationExamples;
import dev.ratelimit.testsupport.DocumentationExamples.Block;
import dev.ratelimit.testsupport.DocumentationTranscripts;
import dev.ratelimit.testsupport.RedisTestServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/testing.md shows the user-style module's test as it is: the module runs it, this keeps the page equal to it.
 */
class TestingDocumentationTests {

	private static final Path PAGE = Path.of("..", "docs", "testing.md");

	private static final Path EXAMPLES = Path.of("..", "ratelimit-test-user-example", "src", "test", "java", "com",
			"example", "greeting");

	@Test
	void showsTheUserModulesTestAsItIs() throws IOException {
		List<Block> blocks = DocumentationExamples.read(PAGE, "java");
		assertThat(blocks).hasSizeGreaterThanOrEqualTo(2);
		assertThat(blocks.get(0).text()).isEqualTo(withoutPackage(EXAMPLES.resolve("HelloRateLimitTests.java")));
	}

	@Test
	void showsTheClockTestsLinesAsTheyAre() throws IOException {
		List<String> clockTest = Files.readAllLines(EXAMPLES.resolve("MovedClockTests.java"))
			.stream()
			.map(String::strip)
			.toList();
		String block = DocumentationExamples.read(PAGE, "java").get(1).text();
		assertThat(block.lines().map(String::strip).filter((line) -> !line.isEmpty() && !line.startsWith("//")))
			.as("lines of the page's clock test")
			.hasSizeGreaterThan(10)
			.allSatisfy((line) -> assertThat(clockTest).as("MovedClockTests").contains(line));
	}

	@Test
	void showsTheLineATestJvmPrintsAboutItsRedis() {
		DocumentationTranscripts.assertShows(DocumentationTranscripts.text(PAGE, "TestingDocumentationTests", null),
				RedisTestServer.shared().announcement() + "\n");
	}

	@Test
	void isLinkedFromTheReadme() throws IOException {
		assertThat(Files.readString(Path.of("..", "README.md"))).contains("](docs/testing.md)");
	}

	private static String withoutPackage(Path source) throws IOException {
		String text = Files.readString(source).replace("\t", "    ");
		return text.substring(text.indexOf('\n', text.indexOf("package ")) + 1).stripLeading();
	}

}
