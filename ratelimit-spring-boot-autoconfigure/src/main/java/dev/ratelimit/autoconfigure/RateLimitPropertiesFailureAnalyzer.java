package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.convert.ConversionFailedException;

/**
 * Explains the binder's errors under {@code ratelimit.} with the fix: the known property closest to a misspelt one,
 * the accepted forms of a duration, the accepted values of a choice. Ahead of Spring Boot's own analyzers, which name the property but not the fix.
 */
class RateLimitPropertiesFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

	static final String DURATION_FORMS = "a number with a unit (500ms, 30s, 5m, 2h, 1d), an ISO-8601 duration (PT5M),"
			+ " or a number of milliseconds (300000)";

	private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("ratelimit");

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
		if (!PREFIX.isAncestorOf(cause.getName()) && !PREFIX.equals(cause.getName())) {
			return null;
		}
		UnboundConfigurationPropertiesException unbound = findCause(cause, UnboundConfigurationPropertiesException.class);
		if (unbound != null) {
			return unknownProperties(unbound, cause);
		}
		ConversionFailedException conversion = findCause(cause, ConversionFailedException.class);
		if (conversion != null && Duration.class.equals(conversion.getTargetType().getType())) {
			return badDuration(cause, conversion);
		}
		if (conversion != null && conversion.getTargetType().getType().isEnum()) {
			return badChoice(cause, conversion, conversion.getTargetType().getType());
		}
		return null;
	}

	private FailureAnalysis unknownProperties(UnboundConfigurationPropertiesException unbound, BindException cause) {
		List<ConfigurationProperty> properties = unbound.getUnboundProperties()
			.stream()
			.sorted((a, b) -> a.getName().toString().compareTo(b.getName().toString()))
			.toList();
		String description = properties.stream()
			.map((property) -> "Property " + property.getName() + " (" + origin(property) + ") is not a property of"
					+ " the rate limiter.")
			.collect(Collectors.joining("\n"));
		String action = properties.stream()
			.map((property) -> PropertyNames.closestTo(property.getName())
				.map((known) -> "Did you mean " + known + "? Rename " + property.getName() + " to it.")
				.orElseGet(() -> "Remove " + property.getName() + " or rename it to one of: "
						+ String.join(", ", PropertyNames.siblingsOf(property.getName())) + "."))
			.collect(Collectors.joining("\n"));
		return new FailureAnalysis(description,
				action + "\nEvery property is listed in docs/properties.md and in your IDE's completion.", cause);
	}

	private FailureAnalysis badDuration(BindException cause, ConversionFailedException conversion) {
		ConfigurationProperty property = cause.getProperty();
		Object value = (property != null) ? property.getValue() : conversion.getValue();
		String where = (property != null) ? " (" + origin(property) + ")" : "";
		return new FailureAnalysis(
				"Property " + cause.getName() + where + " has the value '" + value + "', which is not a duration.",
				"Write " + cause.getName() + " as " + DURATION_FORMS + ": for five minutes, 5m, PT5M or 300s.",
				cause);
	}

	private FailureAnalysis badChoice(BindException cause, ConversionFailedException conversion, Class<?> choices) {
		ConfigurationProperty property = cause.getProperty();
		Object value = (property != null) ? property.getValue() : conversion.getValue();
		String where = (property != null) ? " (" + origin(property) + ")" : "";
		String accepted = Arrays.stream(choices.getEnumConstants())
			.map((choice) -> ((Enum<?>) choice).name().toLowerCase(Locale.ROOT).replace('_', '-'))
			.collect(Collectors.joining(", "));
		return new FailureAnalysis("Property " + cause.getName() + where + " has the value '" + value
				+ "', which is not one of its accepted values: " + accepted + ".",
				"Set " + cause.getName() + " to one of: " + accepted + ".", cause);
	}

	private static String origin(ConfigurationProperty property) {
		return (property.getOrigin() != null) ? "from " + property.getOrigin() : "origin unknown";
	}

}
