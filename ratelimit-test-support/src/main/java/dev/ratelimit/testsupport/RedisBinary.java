package dev.ratelimit.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Locates a {@code redis-server} executable: one on the {@code PATH}, or the binary shipped inside the
 * {@code com.github.codemonstur:embedded-redis} artifact, extracted once per JVM.
 */
public final class RedisBinary {

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
