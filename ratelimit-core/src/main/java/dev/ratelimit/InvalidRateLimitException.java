package dev.ratelimit;

/**
 * Thrown when a limit, or a call made under limits, is out of range: names the argument at fault, and
 * for one of several limits its index, so that configuration can name the property.
 *
 * @since 0.1.0
 */
public class InvalidRateLimitException extends IllegalArgumentException {

	private final String argument;

	private final int index;

	private final String reason;

	/**
	 * Creates an exception.
	 * @param argument the argument at fault: {@code limit}, {@code window}, {@code burst}, {@code permits}
	 * or {@code limits}
	 * @param index the index of the limit at fault among several, or {@code -1}
	 * @param reason what is wrong, without the argument's name, such as {@code must be at least 1, but was 0}
	 */
	public InvalidRateLimitException(String argument, int index, String reason) {
		super(argument + " " + reason);
		this.argument = argument;
		this.index = index;
		this.reason = reason;
	}

	/**
	 * Returns the argument at fault.
	 * @return {@code limit}, {@code window}, {@code burst}, {@code permits} or {@code limits}
	 */
	public String getArgument() {
		return this.argument;
	}

	/**
	 * Returns the index of the limit at fault among several.
	 * @return the index, or {@code -1} when the fault is not one limit's
	 */
	public int getIndex() {
		return this.index;
	}

	/**
	 * Returns what is wrong, without the argument's name.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

}
