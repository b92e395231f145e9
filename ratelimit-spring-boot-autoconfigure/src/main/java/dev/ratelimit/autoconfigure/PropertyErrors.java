package dev.ratelimit.autoconfigure;

import java.util.function.Function;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Turns the {@link IllegalArgumentException} of a check into a startup error that names the property.
 */
final class PropertyErrors {

	private PropertyErrors() {
	}

	static <T, R> R check(String property, T value, Function<T, R> check) {
		try {
			return check.apply(value);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidConfigurationPropertyValueException(property, value, ex.getMessage());
		}
	}

}
