package dev.ratelimit.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Locates a {@code redis-server} executable: one on the {@code PATH}, or the binary shipped inside the
 * {@code com.github.codemonstur:embedded-redis} artifact, extracted once per JVM. The system property
 * {@value #SELECTION_PROPERTY} pins the tests to one of them: {@code embedded} (Redis 6.2) or {@code installed}
 * (the {@code PATH}'s, Debian's Redis 7 in CI).
 */
public final class RedisBinary {

	/** The system property that pins the test Redis to one binary: {@code embedded} or {@code installed}. */
	public static final String SELECTION_PROPERTY = "ratelimit.test.redis-binary";

	private static final Pattern VERSION = Pattern.compile("v=(\\S+)");

	private static @Nullable Path extracted;

	private RedisBinary() {
	}

	/**
	 * Returns a {@code redis-server} found on the {@code PATH}, if any.
	 * @return the executable, or empty when none is on the {@code PATH}
	 */
	public static Optional<Path> onPath() {
		String path = System.getenv("PATH");
		if (path == null) {
			return Optional.empty();
		}
		for (String dir : path.split(File.pathSeparator)) {
			if (dir.isEmpty()) {
				continue;
			}
			Path candidate = Path.of(dir, "redis-server");
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return Optional.of(candidate);
			}
		}
		return Optional.empty();
	}

	/**
	 * Returns the {@code redis-server} binary shipped inside the embedded-redis artifact for this
	 * operating system and architecture, extracted to a temporary file that is deleted when the JVM
	 * exits.
	 * @return the executable
	 * @throws IllegalStateException when the artifact ships no binary for this platform or is not on
	 * the class path
	 */
	public static synchronized Path embedded() {
		if (extracted != null) {
			return extracted;
		}
		String resource = embeddedResourceName();
		try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("The redis-server binary '" + resource
						+ "' is not on the class path: add com.github.codemonstur:embedded-redis to the dependencies");
			}
			Path file = Files.createTempFile("ratelimit-redis-server-", "");
			file.toFile().deleteOnExit();
			Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
			if (!file.toFile().setExecutable(true, true)) {
				throw new IllegalStateException("Could not make " + file + " executable");
			}
			extracted = file;
			return file;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not extract the embedded redis-server binary", ex);
		}
	}

	/**
	 * Returns a {@code redis-server} from the {@code PATH}, else the embedded one.
	 * @return the executable
	 */
	public static Path find() {
		return onPath().orElseGet(RedisBinary::embedded);
	}

	/**
	 * Returns the binary a selection names: {@code embedded} or {@code installed}.
	 * @param selection the value of {@value #SELECTION_PROPERTY}
	 * @return the executable, or empty when the selection is {@code installed} and no {@code redis-server} is
	 * on the {@code PATH}
	 * @throws IllegalArgumentException for any other selection
	 */
	public static Optional<Path> selected(String selection) {
		return switch (selection) {
			case "embedded" -> Optional.of(embedded());
			case "installed" -> onPath();
			default -> throw new IllegalArgumentException(SELECTION_PROPERTY + " must be 'embedded' or 'installed', not '"
					+ selection + "'");
		};
	}

	/**
	 * Returns the version a {@code redis-server} reports with {@code --version}, such as {@code 7.0.15}.
	 * @param binary the executable
	 * @return the version
	 */
	public static String version(Path binary) {
		try {
			Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			process.waitFor(10, TimeUnit.SECONDS);
			Matcher matcher = VERSION.matcher(output);
			if (!matcher.find()) {
				throw new IllegalStateException(binary + " --version printed no version: " + output);
			}
			return matcher.group(1);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not run " + binary, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + binary, ex);
		}
	}

	/**
	 * Returns whether a {@code redis-server} was built with TLS: it then calls OpenSSL, whose function names
	 * are in the executable, whether OpenSSL is linked statically or dynamically.
	 * @param binary the executable
	 * @return {@code true} when it can serve TLS
	 */
	public static boolean supportsTls(Path binary) {
		try {
			// ISO-8859-1 maps every byte to one char, so the search cannot be thrown off by invalid sequences
			return new String(Files.readAllBytes(binary.toRealPath()), StandardCharsets.ISO_8859_1).contains("SSL_CTX_new");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + binary, ex);
		}
	}

	private static String embeddedResourceName() {
		String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
		boolean arm = arch.contains("aarch64") || arch.contains("arm64");
		if (os.contains("linux")) {
			if (arm) {
				return "redis-server-6.2.7-linux-arm64";
			}
			return (arch.contains("64") ? "redis-server-6.2.6-v5-linux-amd64" : "redis-server-6.2.7-linux-386");
		}
		if (os.contains("mac")) {
			return (arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64");
		}
		throw new IllegalStateException("embedded-redis ships no redis-server for " + os + "/" + arch
				+ ": install redis-server on the PATH or set RATELIMIT_TEST_REDIS_URL");
	}

}
