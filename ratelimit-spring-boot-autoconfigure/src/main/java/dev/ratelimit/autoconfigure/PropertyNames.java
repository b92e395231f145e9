package dev.ratelimit.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.ResolvableType;

/**
 * The property names the parts of the properties bind ({@link PropertyParts}), read from their JavaBean properties,
 * so that a misspelt name can be matched to the closest known one.
 */
final class PropertyNames {

	private static final String PREFIX = PropertyParts.PREFIX;

	private PropertyNames() {
	}

	/**
	 * The known property closest to a name that bound nothing, if one is close enough to be a typo of it.
	 * @param unknown the name under {@code ratelimit.} that bound nothing
	 * @return the full name of the closest known property
	 */
	static Optional<String> closestTo(ConfigurationPropertyName unknown) {
		Level level = levelOf(unknown);
		if (level == null) {
			return Optional.empty();
		}
		String typed = unknown.getElement(level.depth(), ConfigurationPropertyName.Form.DASHED);
		int tolerance = Math.max(2, typed.length() / 3);
		return level.names()
			.stream()
			.min(Comparator.comparingInt((String name) -> distance(name, typed)))
			.filter((name) -> distance(name, typed) <= tolerance)
			.map((name) -> level.path() + "." + name);
	}

	/**
	 * The known names beside a name that bound nothing.
	 * @param unknown the name under {@code ratelimit.} that bound nothing
	 * @return the known names at the level where the name stopped matching, sorted
	 */
	static List<String> siblingsOf(ConfigurationPropertyName unknown) {
		Level level = levelOf(unknown);
		return (level != null) ? level.names().stream().sorted().toList() : List.of();
	}

	/**
	 * Walks the parts' types along the name, map keys and list indexes included, down to the first element no
	 * property has.
	 */
	private static @Nullable Level levelOf(ConfigurationPropertyName name) {
		if (name.getNumberOfElements() < 2
				|| !PREFIX.equals(name.getElement(0, ConfigurationPropertyName.Form.DASHED))) {
			return null;
		}
		Map<String, ResolvableType> properties = rootProperties();
		StringBuilder path = new StringBuilder(PREFIX);
		int index = 1;
		while (index < name.getNumberOfElements()) {
			String element = name.getElement(index, ConfigurationPropertyName.Form.DASHED);
			ResolvableType type = properties.get(element);
			if (type == null) {
				return properties.isEmpty() ? null : new Level(path.toString(), index, properties.keySet());
			}
			path.append('.').append(element);
			index++;
			Class<?> resolved = type.resolve(Object.class);
			while ((Map.class.isAssignableFrom(resolved) || Collection.class.isAssignableFrom(resolved))
					&& index < name.getNumberOfElements()) {
				// a key of the map or an index of the list: the next element is the value's
				type = Map.class.isAssignableFrom(resolved) ? type.asMap().getGeneric(1) : type.asCollection().getGeneric(0);
				String key = name.getElement(index, ConfigurationPropertyName.Form.DASHED);
				path.append(name.isNumericIndex(index) ? "[" + key + "]" : "." + key);
				index++;
				resolved = type.resolve(Object.class);
			}
			properties = propertiesOf(resolved);
		}
		return null;
	}

	/**
	 * The names right under {@code ratelimit.}: the properties of every part bound there, and the element each part
	 * bound below it starts with.
	 */
	private static Map<String, ResolvableType> rootProperties() {
		Map<String, ResolvableType> properties = new LinkedHashMap<>();
		for (PropertyParts.Part part : PropertyParts.ALL) {
			if (part.prefix().equals(PREFIX)) {
				properties.putAll(propertiesOf(part.type()));
			}
			else {
				properties.put(part.prefix().substring(PREFIX.length() + 1), ResolvableType.forClass(part.type()));
			}
		}
		return properties;
	}

	private static Map<String, ResolvableType> propertiesOf(Class<?> type) {
		Map<String, ResolvableType> properties = new LinkedHashMap<>();
		if (type.getName().startsWith("java.") || type.isEnum() || type.isPrimitive()) {
			return properties;
		}
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (descriptor.getReadMethod() == null || "class".equals(descriptor.getName())) {
				continue;
			}
			properties.put(DataObjectPropertyName.toDashedForm(descriptor.getName()),
					ResolvableType.forMethodReturnType(descriptor.getReadMethod(), type));
		}
		return properties;
	}

	/** The Levenshtein distance of two names. */
	static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	private record Level(String path, int depth, Collection<String> names) {

		Level {
			names = new ArrayList<>(names);
		}

	}

}
