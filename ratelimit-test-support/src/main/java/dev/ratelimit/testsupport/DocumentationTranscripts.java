package dev.ratelimit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.opentest4j.AssertionFailedError;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

/**
 * The transcripts of the project's Markdown documents (a command and its output, a request and its response, the
 * text of a startup error or a log line), for the tests that produce or check them. The test that checks a transcript
 * is named on the line before its fence, {@code <!-- checked by SampleApplicationTests -->}, with a label when the
 * test checks several blocks of one page ({@code <!-- checked by SampleApplicationTests: rates -->}); the test reads
 * the block by that name and label ({@link #text}) and compares it with what it produced ({@link #assertShows}).
 * {@code DocumentationTranscriptsTests} fails on a block that looks like a transcript and has no such marker.
 */
public final class DocumentationTranscripts {

	/** The marker, on the line before a fence, naming the test that checks the block and, optionally, a label. */
	public static final Pattern MARKER = Pattern.compile("^\\s*<!-- checked by (\\w+)(?:: ([\\w.-]+))? -->$");

	/**
	 * The marker, on the line before a fence, of a transcript no test can reproduce (its output depends on how
	 * concurrent calls race), with the reason; {@code DocumentationTranscriptsTests} lists how many there may be.
	 */
	public static final Pattern NOT_CHECKED = Pattern.compile("^\\s*<!-- not-checked: (.+) -->$");

	/** Fence languages of blocks that are code or configuration, never transcripts. */
	private static final Set<String> CODE = Set.of("java", "properties", "xml", "yaml", "json", "bash", "kotlin",
			"groovy", "lua");

	/** Lines that only a transcript shows: a prompt, a status line, Spring Boot's failure report, a log line. */
	private static final Pattern TRANSCRIPT_LINE = Pattern.compile("^(\\$ .*|HTTP/[0-9.]+ \\d{3}.*|Description:"
			+ "|APPLICATION FAILED TO START.*|Invalid value '.*|Property .* is invalid.*|(TRACE|DEBUG|INFO|WARN|ERROR) .*"
			+ "|\\d+: [A-Z_]+ .*|ended: .*)$");

	private static final Pattern DATE = Pattern.compile("(?mi)^(Date: ).*$");

	private static final Pattern INSTANT = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z");

	private static final Pattern TRAILING_SPACE = Pattern.compile("(?m)[ \\t]+$");

	private DocumentationTranscripts() {
	}

	/**
	 * Returns every fenced block of a document that looks like a transcript or carries a marker, in order.
	 * @param document the Markdown file
	 * @return the blocks
	 */
	public static List<Transcript> read(Path document) {
		List<String> lines = lines(document);
		List<Transcript> transcripts = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			String fence = lines.get(i).stripLeading();
			if (!fence.startsWith("```")) {
				continue;
			}
			String language = fence.substring(3).trim();
			int indent = lines.get(i).length() - fence.length();
			int end = i + 1;
			while (end < lines.size() && !lines.get(end).stripLeading().startsWith("```")) {
				end++;
			}
			List<String> body = new ArrayList<>();
			for (String line : lines.subList(i + 1, Math.min(end, lines.size()))) {
				body.add((line.length() >= indent && line.substring(0, indent).isBlank()) ? line.substring(indent) : line);
			}
			String before = (i > 0) ? lines.get(i - 1) : "";
			Matcher marker = MARKER.matcher(before);
			Matcher notChecked = NOT_CHECKED.matcher(before);
			boolean marked = marker.matches();
			boolean exempt = notChecked.matches();
			boolean looksLikeOne = !CODE.contains(language)
					&& body.stream().anyMatch((line) -> TRANSCRIPT_LINE.matcher(line).matches());
			if (marked || exempt || looksLikeOne) {
				transcripts.add(new Transcript(document, i + 2, marked ? marker.group(1) : null,
						marked ? marker.group(2) : null, exempt ? notChecked.group(1) : null,
						String.join("\n", body) + "\n"));
			}
			i = end;
		}
		return transcripts;
	}

	/**
	 * Returns the text of the one block of a document marked as checked by a test, with a label.
	 * @param document the Markdown file
	 * @param checker the simple name of the test class that checks it
	 * @param label the label of the marker, or {@code null} for a marker without one
	 * @return the block's text, without its fences and indentation, ending with a line break
	 */
	public static String text(Path document, String checker, @Nullable String label) {
		List<Transcript> found = read(document).stream()
			.filter((transcript) -> checker.equals(transcript.checker()))
			.filter((transcript) -> (label == null) ? transcript.label() == null : label.equals(transcript.label()))
			.toList();
		if (found.size() != 1) {
			throw new IllegalStateException(document + " has " + found.size() + " blocks marked <!-- checked by "
					+ checker + ((label != null) ? ": " + label : "") + " -->; expected one");
		}
		return found.get(0).text();
	}

	/**
	 * Fails unless a transcript the test produced shows what the document does. Only what truly varies is left
	 * out of the comparison: the value of a {@code Date} header, an ISO-8601 instant ({@code 2026-11-30T23:52:10.312Z})
	 * and the spaces that end a line or the blank lines that end the block; a {@code ...} in the
	 * document stands for any text of its line (a part of a long output the document leaves out).
	 * @param documented the document's block, from {@link #text}
	 * @param actual what the test produced, command lines included
	 */
	public static void assertShows(String documented, String actual) {
		String expected = normalise(documented);
		String[] expectedLines = expected.split("\n", -1);
		String[] actualLines = normalise(actual).split("\n", -1);
		for (int i = 0; i < Math.min(expectedLines.length, actualLines.length); i++) {
			if (expectedLines[i].contains("...") && elision(expectedLines[i]).matcher(actualLines[i]).matches()) {
				actualLines[i] = expectedLines[i];
			}
		}
		String reconciled = String.join("\n", actualLines);
		if (!reconciled.equals(expected)) {
			throw new AssertionFailedError("The transcript in the document differs from the real output.\nThe document:\n"
					+ expected + "\nThe real output:\n" + reconciled, expected, reconciled);
		}
	}

	/**
	 * Returns the report Spring Boot prints for an application that failed to start, from its
	 * {@code Description:} on: the analysis of the first of the application's failure analyzers (in their order)
	 * that analyses the failure.
	 * @param failure why the application failed to start
	 * @param environment the application's environment, where the analyzers look up a property's origin
	 * @return the report, ending with a line break
	 */
	public static String failureReport(Throwable failure, Environment environment) {
		ArgumentResolver arguments = ArgumentResolver.of(Environment.class, environment)
			.and(BeanFactory.class, new DefaultListableBeanFactory());
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation()
			.load(FailureAnalyzer.class, arguments);
		AnnotationAwareOrderComparator.sort(analyzers);
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return "Description:\n\n" + analysis.getDescription() + "\n\nAction:\n\n" + analysis.getAction() + "\n";
			}
		}
		throw new IllegalStateException("No failure analyzer analyses " + failure, failure);
	}

	private static String normalise(String text) {
		// a block's end hides the blank line curl -i prints after the headers of an empty body
		String normalised = TRAILING_SPACE.matcher(text.replace("\r\n", "\n")).replaceAll("").stripTrailing() + "\n";
		return INSTANT.matcher(DATE.matcher(normalised).replaceAll("$1(date)")).replaceAll("(instant)");
	}

	private static Pattern elision(String line) {
		return Pattern.compile(Arrays.stream(line.split(Pattern.quote("..."), -1))
			.map(Pattern::quote)
			.collect(Collectors.joining(".*")));
	}

	private static List<String> lines(Path document) {
		try {
			return Files.readAllLines(document);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * A block of a document that is a transcript or is marked as checked.
	 *
	 * @param document the document
	 * @param line the block's first line, counted from 1
	 * @param checker the test class its marker names, or {@code null} when it has none
	 * @param label the label of its marker, or {@code null}
	 * @param notChecked the reason of its {@link #NOT_CHECKED} marker, or {@code null}
	 * @param text the block, without its fences and indentation
	 */
	public record Transcript(Path document, int line, @Nullable String checker, @Nullable String label,
			@Nullable String notChecked, String text) {

		@Override
		public String toString() {
			return this.document.getFileName() + ":" + this.line;
		}

	}

}
