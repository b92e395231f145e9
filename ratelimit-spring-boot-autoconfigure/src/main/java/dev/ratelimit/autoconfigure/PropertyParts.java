package dev.ratelimit.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.autoconfigure.client.RateLimitClientProperties;
import dev.ratelimit.autoconfigure.web.RateLimitFilterProperties;

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
 * explains.
 */
final class PropertyParts {

	static final String PREFIX = "ratelimit";

	/**
	 * Every part with its prefix, the common one last; a part's prefix is {@code ratelimit} or one element below it.
	 */
	static final List<Part> ALL = List.of(new Part(PREFIX, RateLimitClientProperties.class),
			new Part(PREFIX + ".filter", RateLimitFilterProperties.class), new Part(PREFIX, RateLimitProperties.class));

	private PropertyParts() {
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
