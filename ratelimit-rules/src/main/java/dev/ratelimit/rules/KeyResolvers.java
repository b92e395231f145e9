package dev.ratelimit.rules;

/**
 * Tells which beans a rule's {@code bean:<name>} key may name: those of the key-resolver type of the
 * web stack that applies the rule.
 *
 * @since 0.1.0
 */
public interface KeyResolvers {

	/**
	 * Returns whether a key-resolver bean has this name.
	 * @param name the bean name
	 * @return {@code true} when there is such a bean
	 */
	boolean exists(String name);

	/**
	 * Returns the key-resolver type's name, for messages.
	 * @return the name of the type
	 */
	String type();

}
