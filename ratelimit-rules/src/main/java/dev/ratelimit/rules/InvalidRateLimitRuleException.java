package dev.ratelimit.rules;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a rule's definition is invalid: names the attribute, its value and the fix.
 *
 * @since 0.1.0
 */
public class InvalidRateLimitRuleException extends IllegalArgumentException {

	private final String rule;

	private final String attribute;

	private final @Nullable Object value;

	private final String reason;

	/**
	 * Creates an exception.
	 * @param rule the rule's name
	 * @param attribute the attribute at fault, for example {@code window}
	 * @param value its value
	 * @param reason what is wrong and how to fix it
	 */
	public InvalidRateLimitRuleException(String rule, String attribute, @Nullable Object value, String reason) {
		super("Rate-limit rule '" + rule + "': " + attribute + " '" + value + "' is invalid: " + reason);
		this.rule = rule;
		this.attribute = attribute;
		this.value = value;
		this.reason = reason;
	}

	/**
	 * Returns the rule's name.
	 * @return the name
	 */
	public String getRule() {
		return this.rule;
	}

	/**
	 * Returns the attribute at fault.
	 * @return the attribute
	 */
	public String getAttribute() {
		return this.attribute;
	}

	/**
	 * Returns the value at fault.
	 * @return the value
	 */
	public @Nullable Object getValue() {
		return this.value;
	}

	/**
	 * Returns what is wrong and how to fix it.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

}
