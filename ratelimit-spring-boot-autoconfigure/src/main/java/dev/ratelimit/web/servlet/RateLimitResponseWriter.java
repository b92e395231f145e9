package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Writes the rate-limit headers of draft-ietf-httpapi-ratelimit-headers ({@code RateLimit-Policy},
 * {@code RateLimit}), optionally the legacy {@code X-RateLimit-*} ones, and RFC 9457 problem
 * responses for rejected and failed requests.
 */
public final class RateLimitResponseWriter {

	/** The media type of problem responses. */
	public static final String PROBLEM_JSON = "application/problem+json";

	private final boolean headers;

	private final boolean legacyHeaders;

	/**
	 * Creates a writer.
	 * @param headers whether to send {@code RateLimit-Policy} and {@code RateLimit}
	 * @param legacyHeaders whether to send {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and
	 * {@code X-RateLimit-Reset}
	 */
	public RateLimitResponseWriter(boolean headers, boolean legacyHeaders) {
		this.headers = headers;
		this.legacyHeaders = legacyHeaders;
	}

	/**
	 * Adds the rate-limit headers of the limits applied to a request, one list member per rule.
	 * @param response the response
	 * @param applied the limits applied, in order
	 */
	public void writeHeaders(HttpServletResponse response, List<AppliedLimit> applied) {
		if (applied.isEmpty()) {
			return;
		}
		if (this.headers) {
			List<String> policies = new ArrayList<>();
			List<String> states = new ArrayList<>();
			for (AppliedLimit limit : applied) {
				String name = "\"" + limit.policy() + "\"";
				policies.add(name + ";q=" + limit.limit().limit() + ";w=" + seconds(limit.limit().window()));
				states.add(name + ";r=" + limit.decision().remaining() + ";t=" + seconds(limit.decision().resetAfter()));
			}
			response.setHeader("RateLimit-Policy", String.join(", ", policies));
			response.setHeader("RateLimit", String.join(", ", states));
		}
		if (this.legacyHeaders) {
			AppliedLimit tightest = applied.stream()
				.min(Comparator.comparingLong((AppliedLimit limit) -> limit.decision().remaining()))
				.orElseThrow();
			response.setHeader("X-RateLimit-Limit", Long.toString(tightest.limit().limit()));
			response.setHeader("X-RateLimit-Remaining", Long.toString(tightest.decision().remaining()));
			response.setHeader("X-RateLimit-Reset", Long.toString(seconds(tightest.decision().resetAfter())));
		}
	}

	/**
	 * Writes a 429 Too Many Requests problem response with {@code Retry-After}, the longest wait among
	 * the violated limits.
	 * @param request the request
	 * @param response the response
	 * @param violated the limits that refused the request, at least one
	 * @throws IOException when the body cannot be written
	 */
	public void writeRejection(HttpServletRequest request, HttpServletResponse response, List<AppliedLimit> violated)
			throws IOException {
		Duration longest = Duration.ZERO;
		List<String> descriptions = new ArrayList<>();
		List<String> names = new ArrayList<>();
		for (AppliedLimit limit : violated) {
			longest = (limit.decision().retryAfter().compareTo(longest) > 0) ? limit.decision().retryAfter() : longest;
			descriptions.add("'" + limit.policy() + "' of " + limit.limit().limit() + " per "
					+ describe(limit.limit().window()));
			names.add(json(limit.policy()));
		}
		long retryAfter = Math.max(1, seconds(longest));
		response.setHeader("Retry-After", Long.toString(retryAfter));
		String detail = ((violated.size() == 1) ? "Rate limit " : "Rate limits ") + String.join(" and ", descriptions)
				+ " exceeded; retry after " + retryAfter + ((retryAfter == 1) ? " second." : " seconds.");
		writeProblem(request, response, 429, "Too Many Requests", detail,
				",\"violatedPolicies\":[" + String.join(",", names) + "]");
	}

	/**
	 * Writes a 503 Service Unavailable problem response for a request that could not be decided.
	 * @param request the request
	 * @param response the response
	 * @throws IOException when the body cannot be written
	 */
	public void writeUnavailable(HttpServletRequest request, HttpServletResponse response) throws IOException {
		response.setHeader("Retry-After", "1");
		writeProblem(request, response, 503, "Service Unavailable",
				"The rate limiter could not reach a decision and ratelimit.failure-mode is fail-closed.", "");
	}

	private static void writeProblem(HttpServletRequest request, HttpServletResponse response, int status,
			String title, String detail, String extensions) throws IOException {
		String body = "{\"type\":\"about:blank\",\"title\":" + json(title) + ",\"status\":" + status + ",\"detail\":"
				+ json(detail) + ",\"instance\":" + json(request.getRequestURI()) + extensions + "}";
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		response.setStatus(status);
		response.setContentType(PROBLEM_JSON);
		response.setContentLength(bytes.length);
		response.getOutputStream().write(bytes);
		response.flushBuffer();
	}

	/**
	 * Returns a duration in whole seconds, rounded up.
	 * @param duration the duration
	 * @return the seconds
	 */
	static long seconds(Duration duration) {
		long seconds = duration.getSeconds();
		return (duration.getNano() > 0) ? seconds + 1 : seconds;
	}

	private static String describe(Duration window) {
		if (window.toMillis() % 1000 != 0) {
			return window.toMillis() + "ms";
		}
		long seconds = window.getSeconds();
		if (seconds % 3600 == 0) {
			return (seconds == 3600) ? "hour" : (seconds / 3600) + " hours";
		}
		if (seconds % 60 == 0) {
			return (seconds == 60) ? "minute" : (seconds / 60) + " minutes";
		}
		return (seconds == 1) ? "second" : seconds + " seconds";
	}

	static String json(String value) {
		StringBuilder out = new StringBuilder(value.length() + 2).append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				case '\n' -> out.append("\\n");
				case '\r' -> out.append("\\r");
				case '\t' -> out.append("\\t");
				default -> {
					if (c < 0x20 || c == '\u2028' || c == '\u2029') {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		return out.append('"').toString();
	}

}
