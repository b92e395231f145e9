package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Markdown template of the report, a resource under {@code benchmarks/}: {@code {{name}}} is replaced by the
 * value of that name, and {@code {{#name}}…{{/name}}} is kept only when the values have that name (and its value
 * is not {@code false}). A placeholder without a value fails, so that a template and its code cannot drift apart
 * silently.
 */
final class Template {

	private static final Pattern BLOCK = Pattern.compile("\\{\\{#([\\w-]+)}}(.*?)\\{\\{/\\1}}", Pattern.DOTALL);

	private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([\\w-]+)}}");

	private final String name;

	private final String text;

	private Template(String name, String text) {
		this.name = name;
		this.text = text;
	}

	/** Reads a template from the class path, such as {@code sections/hot-key.md} for {@code benchmarks/sections/hot-key.md}. */
	static Template load(String name) {
		String resource = "benchmarks/" + name;
		try (InputStream in = Template.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("No template " + resource + " on the class path");
			}
			return new Template(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Returns a template of the given text, named for the errors it reports. */
	static Template of(String name, String text) {
		return new Template(name, text);
	}

	/** Returns the text with its blocks kept or dropped and its placeholders replaced by the values. */
	String render(Map<String, ?> values) {
		String kept = this.text;
		// a block kept may hold blocks of its own: once more until none is left
		for (Matcher blocks = BLOCK.matcher(kept); blocks.find(); blocks = BLOCK.matcher(kept)) {
			StringBuilder pass = new StringBuilder();
			do {
				Object flag = values.get(blocks.group(1));
				boolean keep = values.containsKey(blocks.group(1)) && !Boolean.FALSE.equals(flag);
				blocks.appendReplacement(pass, Matcher.quoteReplacement(keep ? blocks.group(2) : ""));
			}
			while (blocks.find());
			blocks.appendTail(pass);
			kept = pass.toString();
		}
		Matcher placeholders = PLACEHOLDER.matcher(kept);
		StringBuilder out = new StringBuilder();
		while (placeholders.find()) {
			Object value = values.get(placeholders.group(1));
			if (value == null) {
				throw new IllegalArgumentException("No value for {{" + placeholders.group(1) + "}} in " + this.name);
			}
			placeholders.appendReplacement(out, Matcher.quoteReplacement(value.toString()));
		}
		placeholders.appendTail(out);
		return out.toString();
	}

}
