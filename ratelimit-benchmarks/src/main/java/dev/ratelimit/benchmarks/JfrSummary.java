package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where an application's CPU went, from the execution samples of a JFR recording: the share of samples whose
 * running frame belongs to each part of the stack (a frame of the JDK counts for the code that called it), and the
 * methods of ratelimit with the largest share of samples in which they are on the stack.
 */
final class JfrSummary {

	private static final int TOP = 14;

	/** The filter chains through which ratelimit's filters hand a request on, leaf to root. */
	private static final List<String> CHAINS = List.of("org.apache.catalina.core.ApplicationFilterChain",
			"org.springframework.web.server.handler.DefaultWebFilterChain",
			"org.springframework.cloud.gateway.handler.FilteringWebHandler$DefaultGatewayFilterChain");

	private JfrSummary() {
	}

	/**
	 * Returns the summary of a recording as Markdown.
	 * @param recording the JFR file
	 * @return two tables
	 * @throws IOException when the file cannot be read
	 */
	static String summarize(Path recording) throws IOException {
		Map<String, Integer> parts = new LinkedHashMap<>();
		Map<String, Integer> ours = new LinkedHashMap<>();
		int samples = 0;
		int withOurs = 0;
		int truncated = 0;
		for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
			if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
				continue;
			}
			RecordedStackTrace stack = event.getStackTrace();
			if (stack == null || stack.getFrames().isEmpty()) {
				continue;
			}
			samples++;
			if (stack.isTruncated()) {
				truncated++;
			}
			List<RecordedFrame> frames = stack.getFrames();
			parts.merge(part(frames), 1, Integer::sum);
			Set<String> seen = new HashSet<>();
			for (RecordedFrame frame : frames) {
				String type = frame.getMethod().getType().getName();
				if (CHAINS.stream().anyMatch(type::startsWith)) {
					// below here the filter runs the rest of the request (the handler): not ratelimit's time
					break;
				}
				// lambdas' hidden classes say nothing: their lambda$ methods name the code
				if (type.startsWith("dev.ratelimit.") && !type.startsWith("dev.ratelimit.benchmarks.") && !type.contains("$$Lambda")) {
					String method = shortName(type) + "." + frame.getMethod().getName();
					if (seen.add(method)) {
						ours.merge(method, 1, Integer::sum);
					}
				}
			}
			if (!seen.isEmpty()) {
				withOurs++;
			}
		}
		StringBuilder markdown = new StringBuilder();
		markdown.append(String.format("%,d execution samples; a ratelimit method on the stack (its own work, not the rest "
				+ "of the request it hands on) in %.1f%% of them; %d stacks truncated.%n%n",
				samples, 100.0 * withOurs / Math.max(1, samples), truncated));
		markdown.append("| running code (JDK frames count for their caller) | share of samples |\n|---|---:|\n");
		int total = Math.max(1, samples);
		parts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
			.forEach((entry) -> markdown.append(String.format("| %s | %.1f%% |%n", entry.getKey(), 100.0 * entry.getValue() / total)));
		markdown.append("\n| ratelimit method on the stack (inclusive) | share of samples |\n|---|---:|\n");
		ours.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(TOP)
			.forEach((entry) -> markdown.append(String.format("| `%s` | %.1f%% |%n", entry.getKey(), 100.0 * entry.getValue() / total)));
		return markdown.toString();
	}

	private static String part(List<RecordedFrame> frames) {
		for (RecordedFrame frame : frames) {
			String part = partOf(frame.getMethod().getType().getName());
			if (part != null) {
				return part;
			}
		}
		return "JDK only (GC, JIT and VM threads are not sampled)";
	}

	private static String partOf(String type) {
		if (type.startsWith("dev.ratelimit.benchmarks.")) {
			return "the application";
		}
		if (type.startsWith("dev.ratelimit.")) {
			return "ratelimit";
		}
		if (type.startsWith("io.lettuce.")) {
			return "Lettuce";
		}
		if (type.startsWith("reactor.netty.") || type.startsWith("io.netty.")) {
			return "Netty and Reactor Netty";
		}
		if (type.startsWith("reactor.")) {
			return "Reactor";
		}
		if (type.startsWith("org.apache.catalina.") || type.startsWith("org.apache.coyote.") || type.startsWith("org.apache.tomcat.")) {
			return "Tomcat";
		}
		if (type.startsWith("org.springframework.cloud.gateway.")) {
			return "Spring Cloud Gateway";
		}
		if (type.startsWith("org.springframework.data.")) {
			return "Spring Data Redis";
		}
		if (type.startsWith("org.springframework.")) {
			return "Spring Framework and Boot";
		}
		if (type.startsWith("io.micrometer.")) {
			return "Micrometer";
		}
		if (type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.") || type.startsWith("com.sun.")) {
			return null;
		}
		return "other libraries";
	}

	private static String shortName(String type) {
		String simple = type.substring(type.lastIndexOf('.') + 1);
		return simple.replace('$', '.');
	}

}
