package dev.ratelimit.autoconfigure;

import java.io.IOException;
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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compiles every Java example of the README as written, each a compilation unit, against the
 * starter's class path: an example that drifts from the API fails the build.
 */
class ReadmeExamplesTests {

	private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

	private static final Pattern CLASS_NAME = Pattern.compile("(?m)^(?:public\\s+)?(?:final\\s+)?(?:class|interface|record)\\s+(\\w+)");

	@Test
	void compilesEveryJavaExampleAsWritten(@TempDir Path output) throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		List<JavaFileObject> sources = new ArrayList<>();
		Matcher blocks = JAVA_BLOCK.matcher(readme);
		while (blocks.find()) {
			String code = blocks.group(1);
			Matcher name = CLASS_NAME.matcher(code);
			assertThat(name.find()).as("README example without a class of its own:%n%s", code).isTrue();
			sources.add(new Source(name.group(1), code));
		}
		assertThat(sources).as("Java examples in the README").hasSizeGreaterThanOrEqualTo(6);
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
			List<String> options = List.of("-classpath", classPath(), "-d", output.toString(), "-proc:none",
					"-parameters");
			boolean compiled = compiler.getTask(null, files, diagnostics, options, null, sources).call();
			List<String> errors = diagnostics.getDiagnostics()
				.stream()
				.filter((diagnostic) -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
				.map((diagnostic) -> diagnostic.getSource().getName() + ":" + diagnostic.getLineNumber() + ": "
						+ diagnostic.getMessage(Locale.ROOT))
				.toList();
			assertThat(errors).isEmpty();
			assertThat(compiled).isTrue();
		}
	}

	private static String classPath() {
		// Surefire may run tests from a manifest-only jar; it names the real class path here
		String surefire = System.getProperty("surefire.test.class.path");
		return (surefire != null && !surefire.isBlank()) ? surefire : System.getProperty("java.class.path");
	}

	private static final class Source extends SimpleJavaFileObject {

		private final String code;

		Source(String className, String code) {
			super(URI.create("string:///README/" + className + Kind.SOURCE.extension), Kind.SOURCE);
			this.code = code;
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return this.code;
		}

	}

}
