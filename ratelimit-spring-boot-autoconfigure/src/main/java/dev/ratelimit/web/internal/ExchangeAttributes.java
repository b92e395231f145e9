package dev.ratelimit.web.internal;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The attributes of an exchange that has none of its own (a bean method's call, a gRPC call): what the flow marks
 * on it between its stages, held in a map made at the first mark.
 *
 * @since 0.1.0
 */
public final class ExchangeAttributes {

	private @Nullable Map<String, Object> values;

	/**
	 * Returns an attribute.
	 * @param name its name
	 * @return its value, or {@code null}
	 */
	public @Nullable Object get(String name) {
		Map<String, Object> values = this.values;
		return (values != null) ? values.get(name) : null;
	}

	/**
	 * Sets an attribute.
	 * @param name its name
	 * @param value its value
	 */
	public void put(String name, Object value) {
		Map<String, Object> values = this.values;
		if (values == null) {
			values = new HashMap<>(4);
			this.values = values;
		}
		values.put(name, value);
	}

}
