package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Writes {@code BENCHMARKS.md} and its chart from the JMH results and the other measurements of one run;
 * arguments {@code <results directory> <repository root> <run seconds so far>}. The prose is in the Markdown
 * templates under {@code benchmarks/} on the class path ({@link Template}), the targets in
 * {@code benchmarks/targets.properties} ({@link Targets}); the section classes compute the numbers and the rows.
 */
public final class Report {

	private Report() {
	}

	/**
	 * Writes the report.
	 * @param args results directory, repository root, seconds the run took so far
	 * @throws IOException when a file cannot be read or written
	 */
	public static void main(String[] args) throws IOException {
		Path results = Path.of(args[0]);
		Path root = Path.of(args[1]);
		long seconds = Long.parseLong(args[2]);
		RunResults run = RunResults.read(results);
		Path chart = root.resolve("docs/benchmarks.png");
		Files.createDirectories(chart.getParent());
		Chart.write(Chart.series(run), chart);
		Files.writeString(root.resolve("BENCHMARKS.md"), markdown(run, Targets.load(), Environment.current(seconds)));
		System.out.println("Wrote " + root.resolve("BENCHMARKS.md") + " and " + chart);
	}

	/** Returns {@code BENCHMARKS.md} of a run. */
	static String markdown(RunResults run, Targets targets, Environment environment) {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("date", environment.date());
		values.put("minutes", Math.round(environment.seconds() / 60.0));
		section(values, "targets", TargetsSection.render(run, targets));
		section(values, "method", MethodSection.render(run, environment));
		section(values, "allowedPath", AllowedPathSection.throughput(run));
		section(values, "ratios", AllowedPathSection.ratios(run));
		section(values, "whereTheTimeGoes", AllowedPathSection.whereTheTimeGoes(run));
		section(values, "asyncApi", AsyncSection.asyncApi(run));
		section(values, "bounds", AsyncSection.bounds(run));
		section(values, "steadyState", SteadyStateSection.render(run, targets));
		section(values, "hotKey", HotKeySection.render(run));
		section(values, "newKinds", NewKindsSection.render(run.directory()));
		section(values, "keyCount", KeysAndMemorySection.keyCount(run));
		section(values, "memory", KeysAndMemorySection.memory(run));
		section(values, "httpCost", run.httpCost());
		section(values, "http", HttpSection.render(run, "http", "servlet", "the interceptor"));
		section(values, "httpWebflux", HttpSection.render(run, "httpWebflux", "webflux", "the WebFlux filter"));
		return Template.load("report.md").render(values);
	}

	/** Adds a section, without the blank lines that end it (the template sets them); none when it is left out. */
	private static void section(Map<String, Object> values, String name, @Nullable String text) {
		if (text != null) {
			values.put(name, text.strip());
		}
	}

}
