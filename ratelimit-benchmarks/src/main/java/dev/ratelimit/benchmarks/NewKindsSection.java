package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.jspecify.annotations.Nullable;

/**
 * The report's section on what a slot of work in flight and a reserve/settle pair cost next to a plain decision,
 * from {@link NewKindsBenchmarks}' {@code new-kinds-t<threads>.json}.
 */
final class NewKindsSection {

	/** The operations, their labels and their script calls, in the table's order. */
	private static final List<String[]> OPERATIONS = List.of(new String[] { "decision", "A plain decision", "1" },
			new String[] { "slot", "A slot, taken and given back", "2" },
			new String[] { "slot-with-limit", "A slot with a rate limit (one call), then given back", "2" },
			new String[] { "reserve-settle", "Reserve, then settle below the estimate", "2" },
			new String[] { "reserve-settle-exact", "Reserve, then settle at the estimate", "1" });

	private NewKindsSection() {
	}

	/** Returns the section, or {@code null} when the run did not measure it. */
	static @Nullable String render(Path results) {
		try {
			return read(results);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static @Nullable String read(Path results) throws IOException {
		List<Path> files = new ArrayList<>();
		try (DirectoryStream<Path> found = Files.newDirectoryStream(results, "new-kinds-t*.json")) {
			found.forEach(files::add);
		}
		if (files.isEmpty()) {
			return null;
		}
		Map<String, Double> micros = new LinkedHashMap<>();
		int most = 1;
		List<JsonElement> runs = new ArrayList<>();
		for (Path file : files) {
			JsonParser.parseString(Files.readString(file)).getAsJsonArray().forEach(runs::add);
		}
		for (JsonElement element : runs) {
			JsonObject run = element.getAsJsonObject();
			int threads = run.get("threads").getAsInt();
			most = Math.max(most, threads);
			String operation = run.getAsJsonObject("params").get("operation").getAsString();
			micros.put(operation + "@" + threads, run.getAsJsonObject("primaryMetric").get("score").getAsDouble());
			micros.put(operation + "@" + threads + "±", run.getAsJsonObject("primaryMetric").get("scoreError").getAsDouble());
		}
		StringBuilder rows = new StringBuilder();
		Double plain = micros.get("decision@" + most);
		for (String[] operation : OPERATIONS) {
			Double one = micros.get(operation[0] + "@1");
			Double many = micros.get(operation[0] + "@" + most);
			rows.append("| ").append(operation[1]).append(" | ").append(operation[2]).append(" | ")
				.append((one != null) ? Format.decimal(one) + " ± " + Format.decimal(micros.get(operation[0] + "@1±")) : "–")
				.append(" | ")
				.append((many != null) ? Format.number(most / many * 1e6) : "–").append(" | ")
				.append((many != null && plain != null) ? Format.ratio(plain / many) : "–").append(" |\n");
		}
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("threads", most);
		values.put("rows", rows);
		return Template.load("sections/new-kinds.md").render(values);
	}

	/**
	 * Prints the section of a run's results, to add it to a report by hand when only this part was measured.
	 * @param args the results directory
	 * @throws IOException when the results cannot be read
	 */
	public static void main(String[] args) throws IOException {
		String section = render(Path.of(args[0]));
		System.out.println((section != null) ? section : "(no new-kinds-t*.json in " + args[0] + ")");
	}

}
