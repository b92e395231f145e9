package dev.ratelimit;

import java.util.Locale;

/**
 * Renders enum constants as configuration writes them.
 */
final class Names {

	private Names() {
	}

	static String kebab(Enum<?> constant) {
		return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
