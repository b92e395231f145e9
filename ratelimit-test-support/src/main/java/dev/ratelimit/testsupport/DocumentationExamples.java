package dev.ratelimit.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The examples of the project's Markdown documents, for tests that keep them true: the fenced blocks of a
 * language, and the Java ones compiled as written against the test's class path.
 */
public final class DocumentationExamples {

	/** The marker, on the line before a fence, of a block that tests leave alone. */
	public static final String NOT_RUN = "<!-- not-run -->";

	private static final Pattern CLASS_NAME = Pattern
		.compile("(?m)^(?:public\\s+)?(?:final\\s+)?(?:class|interface|record)\\s+(\\w+)");

	private DocumentationExamples() {
	}

	/**
	 * Returns the fenced blocks of a language in a document, marked {@link #NOT_RUN} or not.
	 * @param document the Markdown file
	 * @param language the fence's language, such as {@code java}
	 * @return the blocks, in order
	 */
	public static List<Block> read(Path document, String language) {
		List<String> lines;
		try {
			lines = Files.readAllLines(document);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<Block> blocks = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			if (!lines.get(i).equals("```" + language)) {
				continue;
			}
			boolean notRun = i > 0 && lines.get(i - 1).trim().equals(NOT_RUN);
			int start = i + 1;
			int end = start;
			while (end < lines.size() && !lines.get(end).startsWith("```")) {
				end++;
			}
			blocks.add(new Block(document, start + 1, String.join("\n", lines.subList(start, end)) + "\n", notRun));
			i = end;
		}
		return blocks;
	}

	/**
	 * Compiles Java blocks as written, each a compilation unit named after its first top-level type,
	 * against this JVM's test class path.
	 * @param blocks the blocks
	 * @param output where the classes go
	 * @return the errors, as {@code <source>:<line>: <message>}, or a block without a type of its own;
	 * empty when every block compiles
	 */
	public static List<String> compile(List<Block> blocks, Path output) {
		List<JavaFileObject> sources = new ArrayList<>();
		List<String> errors = new ArrayList<>();
		for (Block block : blocks) {
			Matcher name = CLASS_NAME.matcher(block.text());
			if (!name.find()) {
				errors.add(block + ": example without a class of its own:\n" + block.text());
				continue;
			}
			sources.add(new Source(block.document().getFileName() + "/" + name.group(1), block.text()));
		}
		if (sources.isEmpty()) {
			return errors;
		}
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
			List<String> options = List.of("-classpath", classPath(), "-d", output.toString(), "-proc:none",
					"-parameters");
			boolean compiled = compiler.getTask(null, files, diagnostics, options, null, sources).call();
			diagnostics.getDiagnostics()
				.stream()
				.filter((diagnostic) -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
				.map((diagnostic) -> diagnostic.getSource().getName() + ":" + diagnostic.getLineNumber() + ": "
						+ diagnostic.getMessage(Locale.ROOT))
				.forEach(errors::add);
			if (!compiled && errors.isEmpty()) {
				errors.add("the compiler failed without an error");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return errors;
	}

	private static String classPath() {
		// Surefire may run tests from a manifest-only jar; it names the real class path here
		String surefire = System.getProperty("surefire.test.class.path");
		return (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
	}

	/**
	 * A fenced block of a document, named by its file and first line.
	 *
	 * @param document the document
	 * @param line the block's first line, counted from 1
	 * @param text the block, without its fences
	 * @param notRun whether the line before its fence marks it {@link #NOT_RUN}
	 */
	public record Block(Path document, int line, String text, boolean notRun) {

		@Override
		public String toString() {
			return this.document.getFileName() + ":" + this.line;
		}

	}

	private static final class Source extends SimpleJavaFileObject {

		private final String code;

		Source(String name, String code) {
			super(URI.create("string:///" + name + Kind.SOURCE.extension), Kind.SOURCE);
			this.code = code;
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return this.code;
		}

	}

}
