package dev.ratelimit.benchmarks;

import java.util.Arrays;
import java.util.List;

/**
 * The median and range of repeated measurements.
 *
 * @param median the median
 * @param min the smallest
 * @param max the largest
 * @param count how many measurements
 */
record Stats(double median, double min, double max, int count) {

	static Stats of(List<? extends Number> values) {
		double[] sorted = values.stream().mapToDouble(Number::doubleValue).sorted().toArray();
		if (sorted.length == 0) {
			return new Stats(Double.NaN, Double.NaN, Double.NaN, 0);
		}
		int n = sorted.length;
		double median = (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
		return new Stats(median, sorted[0], sorted[n - 1], n);
	}

	static Stats of(double... values) {
		return of(Arrays.stream(values).boxed().toList());
	}

	/** Returns the median as a rounded rate, such as {@code 41,200}. */
	String rate() {
		return Format.number(this.median);
	}

	/** Returns the median with the range, such as {@code 41,200 (38,100–44,900)}. */
	String rateWithRange() {
		return Format.number(this.median) + " <sub>" + Format.number(this.min) + "–" + Format.number(this.max) + "</sub>";
	}

	/** Returns the median with the range in milliseconds, such as {@code 0.41 (0.38–0.52)}. */
	String millisWithRange() {
		return Format.millis(this.median) + " <sub>" + Format.millis(this.min) + "–" + Format.millis(this.max) + "</sub>";
	}

}
