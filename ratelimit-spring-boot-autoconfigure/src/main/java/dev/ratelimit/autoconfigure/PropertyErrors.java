package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.function.Function;

import dev.ratelimit.RateLimit;

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
			Object shown = (value instanceof Duration duration) ? RateLimit.label(duration) : value;
			throw new InvalidConfigurationPropertyValueException(property, shown, ex.getMessage());
		}
	}

}
