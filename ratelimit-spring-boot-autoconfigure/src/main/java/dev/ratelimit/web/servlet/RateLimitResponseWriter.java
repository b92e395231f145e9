package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;

/**
 * Writes rate-limit headers and the entities of a
 * {@link dev.ratelimit.web.RateLimitRejectionHandler} to servlet responses, the body through the
 * application's message converters in a media type the client accepts.
 */
public final class RateLimitResponseWriter {

	private final Supplier<List<HttpMessageConverter<?>>> converters;

	/**
	 * Creates a writer.
	 * @param converters the application's message converters, asked for when the first body is written
	 */
	public RateLimitResponseWriter(Supplier<List<HttpMessageConverter<?>>> converters) {
		this.converters = converters;
	}

	/**
	 * Sets headers on a response.
	 * @param response the response
	 * @param headers the headers
	 */
	public void writeHeaders(HttpServletResponse response, HttpHeaders headers) {
		headers.forEach((name, values) -> response.setHeader(name, String.join(", ", values)));
	}

	/**
	 * Writes an entity as the whole response: its status, headers and body.
	 * @param request the request, for the media types it accepts
	 * @param response the response
	 * @param entity the entity
	 * @throws IOException when the body cannot be written
	 */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public void write(HttpServletRequest request, HttpServletResponse response, ResponseEntity<?> entity)
			throws IOException {
		response.setStatus(entity.getStatusCode().value());
		writeHeaders(response, entity.getHeaders());
		Object body = entity.getBody();
		if (body == null) {
			response.flushBuffer();
			return;
		}
		ServletServerHttpResponse output = new ServletServerHttpResponse(response);
		for (MediaType type : mediaTypes(request, entity.getHeaders().getContentType())) {
			for (HttpMessageConverter converter : this.converters.get()) {
				if (converter.canWrite(body.getClass(), type)) {
					converter.write(body, type, output);
					output.flush();
					return;
				}
			}
		}
		throw new IOException("No message converter writes a " + body.getClass().getName() + " in a type "
				+ request.getHeader(HttpHeaders.ACCEPT) + " accepts");
	}

	private static List<MediaType> mediaTypes(HttpServletRequest request, @Nullable MediaType contentType) {
		List<MediaType> types = new ArrayList<>();
		if (contentType != null) {
			types.add(contentType);
		}
		try {
			for (MediaType type : MediaType.parseMediaTypes(request.getHeader(HttpHeaders.ACCEPT))) {
				if (type.isConcrete()) {
					types.add(type);
				}
			}
		}
		catch (InvalidMediaTypeException ex) {
			// a malformed Accept header asks for nothing in particular
		}
		types.add(MediaType.APPLICATION_JSON);
		types.add(MediaType.ALL);
		return types;
	}

}
