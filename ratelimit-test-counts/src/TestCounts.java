import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Prints one line that sums the test reports surefire and failsafe wrote during this build in every module of the
 * project ({@code <module>/target/surefire-reports/TEST-*.xml} and {@code failsafe-reports}): runs, failures, errors
 * and skipped tests. Reports older than the build's start are an earlier build's and are left out; a build that ran
 * no test prints nothing. Run by the module {@code ratelimit-test-counts} at the end of the reactor, as
 * {@code java TestCounts.java <project root> <build start, ISO-8601>}, on JDK 17 or later.
 */
final class TestCounts {

	private static final List<String> REPORT_DIRECTORIES = List.of("surefire-reports", "failsafe-reports");

	private TestCounts() {
	}

	public static void main(String[] args) throws IOException, XMLStreamException {
		if (args.length != 2) {
			throw new IllegalArgumentException("Usage: java TestCounts.java <project root> <build start, ISO-8601>");
		}
		Path root = Path.of(args[0]);
		Instant started = Instant.parse(args[1]);
		long[] counts = new long[4];
		long suites = 0;
		long modules = 0;
		try (Stream<Path> children = Files.list(root)) {
			for (Path module : children.filter(Files::isDirectory).sorted().toList()) {
				long before = suites;
				for (String directory : REPORT_DIRECTORIES) {
					for (Path report : reports(module.resolve("target").resolve(directory), started)) {
						add(report, counts);
						suites++;
					}
				}
				if (suites > before) {
					modules++;
				}
			}
		}
		if (suites > 0) {
			System.out.println(String.format(Locale.ROOT,
					"Tests run: %d, Failures: %d, Errors: %d, Skipped: %d (every module of this build: %d test %s in %d %s,"
							+ " surefire and failsafe)",
					counts[0], counts[1], counts[2], counts[3], suites, (suites == 1) ? "class" : "classes", modules,
					(modules == 1) ? "module" : "modules"));
		}
	}

	private static List<Path> reports(Path directory, Instant started) throws IOException {
		if (!Files.isDirectory(directory)) {
			return List.of();
		}
		try (Stream<Path> files = Files.list(directory)) {
			return files.filter((file) -> {
				String name = file.getFileName().toString();
				return name.startsWith("TEST-") && name.endsWith(".xml") && !modifiedBefore(file, started);
			}).sorted().toList();
		}
	}

	private static boolean modifiedBefore(Path file, Instant instant) {
		try {
			return Files.getLastModifiedTime(file).toInstant().isBefore(instant);
		}
		catch (IOException ex) {
			return true;
		}
	}

	/** Adds the counts of a report's {@code testsuite} element: tests, failures, errors, skipped. */
	private static void add(Path report, long[] counts) throws IOException, XMLStreamException {
		try (InputStream in = Files.newInputStream(report)) {
			XMLStreamReader xml = XMLInputFactory.newFactory().createXMLStreamReader(in);
			try {
				while (xml.hasNext()) {
					if (xml.next() == XMLStreamConstants.START_ELEMENT) {
						if (!"testsuite".equals(xml.getLocalName())) {
							throw new IllegalStateException(report + " is not a test report: it starts with <"
									+ xml.getLocalName() + ">");
						}
						counts[0] += count(xml, "tests");
						counts[1] += count(xml, "failures");
						counts[2] += count(xml, "errors");
						counts[3] += count(xml, "skipped");
						return;
					}
				}
			}
			finally {
				xml.close();
			}
		}
	}

	private static long count(XMLStreamReader xml, String attribute) {
		String value = xml.getAttributeValue(null, attribute);
		return (value != null && !value.isBlank()) ? Long.parseLong(value.strip()) : 0;
	}

}
