package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.jspecify.annotations.Nullable;

/**
 * The results of one run, read from its directory: the JMH results with their trials, {@code measurements.json},
 * {@code overhead.json} and the steady state's and the scripts' tables where the run wrote them.
 */
final class RunResults {

	private final Map<String, JmhResult> byKey = new LinkedHashMap<>();

	private final JsonObject measurements;

	private final @Nullable JsonObject jmhSettings;

	private final @Nullable JsonArray overhead;

	private final Path directory;

	private final @Nullable String steadyState;

	private final @Nullable String scriptCost;

	private final @Nullable String httpCost;

	private RunResults(Path results) throws IOException {
		JsonObject settings = null;
		try (DirectoryStream<Path> files = Files.newDirectoryStream(results, "jmh-*.json")) {
			for (Path file : files) {
				for (JsonElement element : JsonParser.parseString(Files.readString(file)).getAsJsonArray()) {
					JsonObject run = element.getAsJsonObject();
					if (settings == null || file.getFileName().toString().equals("jmh-t1.json")) {
						settings = run;
					}
					JmhResult result = JmhResult.of(run, results);
					this.byKey.put(result.key(), result);
				}
			}
		}
		this.jmhSettings = settings;
		this.measurements = JsonParser.parseString(Files.readString(results.resolve("measurements.json"))).getAsJsonObject();
		Path overheadFile = results.resolve("overhead.json");
		this.overhead = Files.exists(overheadFile) ? JsonParser.parseString(Files.readString(overheadFile)).getAsJsonArray() : null;
		this.steadyState = readIfExists(results.resolve("steady-state.md"));
		this.scriptCost = readIfExists(results.resolve("script-cost.md"));
		this.httpCost = readIfExists(results.resolve("http-cost/http-cost.md"));
		this.directory = results;
	}

	/** Returns the directory of the run's results. */
	Path directory() {
		return this.directory;
	}

	/** Reads the results in a directory. */
	static RunResults read(Path results) throws IOException {
		return new RunResults(results);
	}

	private static @Nullable String readIfExists(Path file) throws IOException {
		return Files.exists(file) ? Files.readString(file) : null;
	}

	/** Returns the JMH result of a system, or {@code null} when the run has none. */
	@Nullable JmhResult result(String system, int keys, int threads) {
		return this.byKey.get(JmhResult.key(system, keys, threads));
	}

	/** Returns every JMH result, in the order read. */
	Iterable<JmhResult> results() {
		return this.byKey.values();
	}

	/** Returns one run of JMH, for its settings: that of one thread where there is one. */
	@Nullable JsonObject jmhSettings() {
		return this.jmhSettings;
	}

	/** Returns the whole of {@code measurements.json}. */
	JsonObject measurements() {
		return this.measurements;
	}

	/** Returns a part of {@code measurements.json}, or {@code null} when the run has none. */
	@Nullable JsonObject measurement(String name) {
		return this.measurements.has(name) ? this.measurements.getAsJsonObject(name) : null;
	}

	/** Returns the steady state's tables ({@link SteadyState}), or {@code null} when the run left them out. */
	@Nullable String steadyState() {
		return this.steadyState;
	}

	/** Returns what a rule costs an HTTP request ({@link HttpCost}), or {@code null} when the run left it out. */
	@Nullable String httpCost() {
		return this.httpCost;
	}

	/** Returns the scripts' instruction counts ({@link ScriptCost}), or {@code null} when the run left them out. */
	@Nullable String scriptCost() {
		return this.scriptCost;
	}

	/** Returns the decisions per second of a system at 10,000 keys. */
	Stats throughput(String system, int threads) {
		JmhResult result = result(system, 10_000, threads);
		return (result != null) ? result.throughput() : Stats.of(List.of());
	}

	/** Returns the physical limit of one of our scripts at {@code depth} in flight. */
	Stats physical(String script, int depth) {
		return series("physicalLimit", script, depth);
	}

	/** Returns the physical limit a system is compared with: its own script, or the fixed window's. */
	Stats physicalFor(String system, int depth) {
		return physical(Measurements.PHYSICAL_SCRIPTS.contains(system) ? system : "fixed-window", depth);
	}

	/** Returns the rates of a script at {@code depth} in flight in a part of {@code measurements.json}. */
	Stats series(String name, String script, int depth) {
		JsonObject row = row(name, "script", script, depth);
		return (row != null) ? Stats.of(Format.numbers(row.getAsJsonArray("perSecond"))) : Stats.of(List.of());
	}

	/** Returns the physical limit's row of a script at {@code depth} in flight, or {@code null}. */
	@Nullable JsonObject physicalRow(String script, int depth) {
		return row("physicalLimit", "script", script, depth);
	}

	/** Returns our limiter's asynchronous API from one thread at {@code depth} in flight. */
	Stats async(String system, int depth) {
		JsonObject row = asyncRow(system, depth);
		return (row != null) ? Stats.of(Format.numbers(row.getAsJsonArray("perSecond"))) : Stats.of(List.of());
	}

	/** Returns the row of our limiter's asynchronous API at {@code depth} in flight, or {@code null}. */
	@Nullable JsonObject asyncRow(String system, int depth) {
		return row("limiterAsync", "system", system, depth);
	}

	private @Nullable JsonObject row(String name, String field, String value, int depth) {
		if (!this.measurements.has(name)) {
			return null;
		}
		for (JsonElement element : this.measurements.getAsJsonArray(name)) {
			JsonObject row = element.getAsJsonObject();
			if (row.get(field).getAsString().equals(value) && row.get("depth").getAsInt() == depth) {
				return row;
			}
		}
		return null;
	}

	/** Returns the rounds of a part of {@code measurements.json}, or "?". */
	String roundsOf(String name) {
		JsonArray rows = this.measurements.has(name) ? this.measurements.getAsJsonArray(name) : new JsonArray();
		return (rows.size() > 0) ? Integer.toString(rows.get(0).getAsJsonObject().getAsJsonArray("perSecond").size()) : "?";
	}

	/** Returns the nanoseconds per decision of {@link LimiterOverheadBenchmarks} for a method and configuration. */
	Stats overhead(String method, String configuration) {
		if (this.overhead != null) {
			for (JsonElement element : this.overhead) {
				JsonObject run = element.getAsJsonObject();
				if (run.get("benchmark").getAsString().endsWith("." + method)
						&& run.getAsJsonObject("params").get("configuration").getAsString().equals(configuration)) {
					return Stats.of(run.getAsJsonObject("primaryMetric").get("score").getAsDouble());
				}
			}
		}
		return Stats.of(List.of());
	}

	/** Returns the hot key's rejections per second with a limit per minute. */
	Stats hotKeyRejections(boolean cached, int threads) {
		for (JsonElement element : this.measurements.getAsJsonObject("hotKey").getAsJsonArray("perMinute")) {
			JsonObject run = element.getAsJsonObject();
			if (run.get("cache").getAsBoolean() == cached && run.get("threads").getAsInt() == threads) {
				return Stats.of(Format.numbers(run.getAsJsonArray("rejectionsPerSecond")));
			}
		}
		return Stats.of(List.of());
	}

	/** Returns the bytes of a key whose budget is spent, or -1 when not measured. */
	long memoryBytes(String system, int limit) {
		for (JsonElement element : this.measurements.getAsJsonArray("memory")) {
			JsonObject row = element.getAsJsonObject();
			if (row.get("system").getAsString().equals(system) && row.get("limit").getAsInt() == limit) {
				return row.get("bytes").getAsLong();
			}
		}
		return -1;
	}

	/** Returns the systems measured at other key counts than 10,000. */
	List<String> keyCountSystems() {
		List<String> systems = new ArrayList<>();
		for (JmhResult result : this.byKey.values()) {
			if (result.keys() != 10_000 && !systems.contains(result.system())) {
				systems.add(result.system());
			}
		}
		return systems;
	}

}
