package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;

import dev.ratelimit.rules.flow.ContentNegotiation;
import dev.ratelimit.rules.flow.HeaderFields;

/**
 * Writes rate-limit headers and the entities of a
 * {@link dev.ratelimit.rules.flow.RateLimitRejectionHandler} to servlet responses, the body through the
 * application's message converters in a media type the client accepts.
 */
final class RateLimitResponseWriter {

	private final Supplier<List<HttpMessageConverter<?>>> converters;

	/**
	 * Creates a writer.
	 * @param converters the application's message converters, asked for each time a body is written
	 * (cache them in the supplier)
	 */
	RateLimitResponseWriter(Supplier<List<HttpMessageConverter<?>>> converters) {
		this.converters = converters;
	}

	/**
	 * Sets headers on a response.
	 * @param response the response
	 * @param headers the headers
	 */
	void writeHeaders(HttpServletResponse response, HttpHeaders headers) {
		HeaderFields.forEach(headers, response::setHeader);
	}

	/**
	 * Writes an entity as the whole response: its status, headers and body.
	 * @param request the request, for the media types it accepts
	 * @param response the response
	 * @param entity the entity
	 * @throws IOException when the body cannot be written
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	void write(HttpServletRequest request, HttpServletResponse response, ResponseEntity<?> entity)
			throws IOException {
		response.setStatus(entity.getStatusCode().value());
		writeHeaders(response, entity.getHeaders());
		Object body = entity.getBody();
		if (body == null) {
			response.flushBuffer();
			return;
		}
		ServletServerHttpResponse output = new ServletServerHttpResponse(response);
		for (MediaType accepted : ContentNegotiation.candidates(entity, request.getHeader(HttpHeaders.ACCEPT))) {
			for (HttpMessageConverter converter : this.converters.get()) {
				for (MediaType produced : producible(converter, body.getClass(), accepted)) {
					if (accepted.isCompatibleWith(produced)) {
						converter.write(body, produced.isConcrete() ? produced : accepted, output);
						output.flush();
						return;
					}
				}
			}
		}
		throw new IOException("No message converter writes a " + body.getClass().getName() + " in a type "
				+ request.getHeader(HttpHeaders.ACCEPT) + " accepts");
	}

	/**
	 * Returns the media types a converter writes a body's class in, {@code accepted} itself when it
	 * names a concrete type the converter writes.
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static List<MediaType> producible(HttpMessageConverter converter, Class<?> bodyClass, MediaType accepted) {
		if (!converter.canWrite(bodyClass, null)) {
			return List.of();
		}
		if (accepted.isConcrete()) {
			return converter.canWrite(bodyClass, accepted) ? List.of(accepted) : List.of();
		}
		return converter.getSupportedMediaTypes(bodyClass);
	}

}
