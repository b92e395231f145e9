package dev.ratelimit.rules;

import java.util.BitSet;
import java.util.List;

/**
 * The response statuses a rule charges, such as {@code 401,403}, {@code 4xx} or {@code 500-599}: the
 * rule checks its budget before the handler and charges it after the response, by its status.
 *
 * @since 0.1.0
 */
public final class ResponseStatuses {

	private final BitSet statuses;

	private final String text;

	private ResponseStatuses(BitSet statuses, String text) {
		this.statuses = statuses;
		this.text = text;
	}

	/**
	 * Parses statuses: codes ({@code 401}), classes ({@code 4xx}) and ranges ({@code 500-599}).
	 * @param entries the entries
	 * @return the statuses
	 * @throws IllegalArgumentException when an entry is none of these, naming it
	 */
	public static ResponseStatuses parse(List<String> entries) {
		BitSet statuses = new BitSet(600);
		for (String raw : entries) {
			String entry = raw.strip().toLowerCase(java.util.Locale.ROOT);
			if (entry.matches("[1-5]xx")) {
				int first = (entry.charAt(0) - '0') * 100;
				statuses.set(first, first + 100);
			}
			else if (entry.matches("\\d{3}")) {
				statuses.set(status(entry, raw));
			}
			else if (entry.matches("\\d{3}-\\d{3}")) {
				int from = status(entry.substring(0, 3), raw);
				int to = status(entry.substring(4), raw);
				if (to < from) {
					throw new IllegalArgumentException("'" + raw + "' ends before it starts; write the lower status first");
				}
				statuses.set(from, to + 1);
			}
			else {
				throw new IllegalArgumentException("'" + raw + "' is not a status; use codes (401), classes (4xx) or "
						+ "ranges (500-599)");
			}
		}
		if (statuses.isEmpty()) {
			throw new IllegalArgumentException("name at least one status, such as 401 or 4xx");
		}
		return new ResponseStatuses(statuses, String.join(",", entries.stream().map(String::strip).toList()));
	}

	private static int status(String code, String raw) {
		int status = Integer.parseInt(code);
		if (status < 100 || status > 599) {
			throw new IllegalArgumentException("'" + raw + "' is not a status from 100 to 599");
		}
		return status;
	}

	/**
	 * Returns whether a response of this status is charged.
	 * @param status the response's status
	 * @return {@code true} when it is among these statuses
	 */
	public boolean includes(int status) {
		return status >= 0 && this.statuses.get(status);
	}

	@Override
	public String toString() {
		return this.text;
	}

}
