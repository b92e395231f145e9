package dev.ratelimit.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;


import java.util.ArrayList;

import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.UnboundElementsSourceFilter;

/**
 * The parts of the {@code ratelimit.*} properties, each bound by its owner's auto-configuration, and the check that
 * every name under {@code ratelimit.} belongs to one of them. The parts are bound together through one
 * {@link NoUnboundElementsBindHandler}, so that a name none of them binds fails as it would on one class with
 * {@code ignoreUnknownFields = false}, with the binder's own error that {@link RateLimitPropertiesFailureAnalyzer}
 * explains. The common part is this package's own; each technology lists its part (a
 * {@link ConfigurationProperties} class) in {@code META-INF/spring/dev.ratelimit.autoconfigure.PropertyParts.imports},
 * so that this package names none of them.
 */
final class PropertyParts {

	static final String PREFIX = "ratelimit";

	/**
	 * Every part with its prefix, the common one last; a part's prefix is {@code ratelimit} or one element below it.
	 */
	static final List<Part> ALL = load();

	private PropertyParts() {
	}

	private static List<Part> load() {
		ClassLoader classLoader = PropertyParts.class.getClassLoader();
		List<Part> parts = new ArrayList<>();
		for (String name : ImportCandidates.load(PropertyParts.class, classLoader)) {
			Class<?> type = ClassUtils.resolveClassName(name, classLoader);
			ConfigurationProperties annotation = type.getAnnotation(ConfigurationProperties.class);
			Assert.state(annotation != null, () -> name + " is listed as a part of the ratelimit.* properties but is "
					+ "no @ConfigurationProperties class");
			parts.add(new Part(annotation.value(), type));
		}
		parts.add(new Part(PREFIX, RateLimitProperties.class));
		return List.copyOf(parts);
	}

	/**
	 * Binds every part, failing on a name under {@code ratelimit.} that none of them binds.
	 * @param binder the binder of the environment
	 * @return the common part
	 * @throws org.springframework.boot.context.properties.bind.BindException when a value does not convert or a name
	 * is unknown (an {@link org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException}
	 * as its cause)
	 */
	static RateLimitProperties bind(Binder binder) {
		NoUnboundElementsBindHandler check = new NoUnboundElementsBindHandler(BindHandler.DEFAULT,
				new UnboundElementsSourceFilter());
		BindHandler partial = new RecordOnly(check);
		for (Part part : ALL.subList(0, ALL.size() - 1)) {
			binder.bind(part.prefix(), Bindable.of(part.type()), partial);
		}
		// the last bind checks every name under ratelimit. against those the parts bound
		return binder.bindOrCreate(PREFIX, Bindable.of(RateLimitProperties.class), check);
	}

	/**
	 * A part of the properties: the prefix it binds at and its type.
	 * @param prefix the prefix
	 * @param type the type
	 */
	record Part(String prefix, Class<?> type) {

	}

	/**
	 * Records the names a part binds in the check, without checking at the end of the part.
	 */
	private static final class RecordOnly extends AbstractBindHandler {

		RecordOnly(BindHandler check) {
			super(check);
		}

		@Override
		public void onFinish(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
				@Nullable Object result) throws Exception {
			if (context.getDepth() > 0) {
				super.onFinish(name, target, context, result);
			}
		}

	}

}
