package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * The targets the report checks, read from {@code benchmarks/targets.properties}: for each, its threshold, how a
 * measured value compares with it, and the wording of the check.
 */
final class Targets {

	/** The resource the targets are read from. */
	static final String RESOURCE = "benchmarks/targets.properties";

	private final Map<String, Target> byName;

	private Targets(Map<String, Target> byName) {
		this.byName = byName;
	}

	/** Reads the targets from the class path. */
	static Targets load() {
		Properties properties = new Properties();
		try (InputStream in = Targets.class.getClassLoader().getResourceAsStream(RESOURCE)) {
			if (in == null) {
				throw new IllegalStateException("No " + RESOURCE + " on the class path");
			}
			properties.load(new InputStreamReader(in, StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Map<String, Target> byName = new TreeMap<>();
		for (String key : properties.stringPropertyNames()) {
			if (key.endsWith(".wording")) {
				String name = key.substring(0, key.length() - ".wording".length());
				String threshold = properties.getProperty(name + ".threshold");
				String compare = properties.getProperty(name + ".compare");
				if ((threshold == null) != (compare == null)) {
					throw new IllegalStateException("Target " + name + " in " + RESOURCE + " needs both a threshold and a compare");
				}
				byName.put(name, new Target(name, (threshold != null) ? new BigDecimal(threshold.strip()) : null,
						(compare != null) ? Compare.of(name, compare.strip()) : null, properties.getProperty(key).strip()));
			}
		}
		return new Targets(byName);
	}

	/** Returns the target of a name; fails when the file has none, naming the file. */
	Target get(String name) {
		Target target = this.byName.get(name);
		if (target == null) {
			throw new IllegalStateException("No target " + name + " in " + RESOURCE + " (" + name + ".wording)");
		}
		return target;
	}

	/** How a measured value must compare with a threshold. */
	enum Compare {

		/** The value is at least the threshold. */
		AT_LEAST,

		/** The value is at most the threshold. */
		AT_MOST,

		/** The value is below the threshold. */
		BELOW;

		static Compare of(String target, String text) {
			try {
				return valueOf(text.toUpperCase(Locale.ROOT).replace('-', '_'));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalStateException("Target " + target + " in " + RESOURCE + " compares " + text
						+ ", not at-least, at-most or below", ex);
			}
		}

	}

	/**
	 * One target.
	 *
	 * @param name its name in the file
	 * @param threshold the bound a measured value is compared with, or {@code null} for a target checked otherwise
	 * @param compare how the value compares with the threshold, or {@code null} with no threshold
	 * @param wording the check as the report words it; {@code {{threshold}}} stands for the threshold
	 */
	record Target(String name, @Nullable BigDecimal threshold, @Nullable Compare compare, String wording) {

		/** Returns the threshold as a number. */
		double bound() {
			if (this.threshold == null) {
				throw new IllegalStateException("Target " + this.name + " in " + RESOURCE + " has no threshold");
			}
			return this.threshold.doubleValue();
		}

		/** Returns whether a measured value meets the target (never for NaN). */
		boolean met(double value) {
			double bound = bound();
			return switch (this.compare) {
				case AT_LEAST -> value >= bound;
				case AT_MOST -> value <= bound;
				case BELOW -> value < bound;
			};
		}

		/** Returns the wording with the threshold written in, such as {@code … ≥ 1.5 × Redisson}. */
		String label() {
			String bound = (this.threshold != null) ? this.threshold.stripTrailingZeros().toPlainString() : "";
			return Template.of(RESOURCE + " (" + this.name + ")", this.wording).render(Map.of("threshold", bound));
		}

	}

}
