package dev.ratelimit.rules.flow;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * Chooses the media types a rejection's body may be written in, for the writers of every web stack.
 *
 * @since 0.1.0
 */
public final class ContentNegotiation {

	private ContentNegotiation() {
	}

	/**
	 * Returns the media types to try for an entity's body, in order: its own content type when it sets
	 * one, else the types the request accepts, the most preferred first, and any type when it names none
	 * or its {@code Accept} header is malformed.
	 * @param entity the entity to write
	 * @param accept the request's {@code Accept} header, or {@code null}
	 * @return the media types
	 */
	public static List<MediaType> candidates(ResponseEntity<?> entity, @Nullable String accept) {
		MediaType contentType = entity.getHeaders().getContentType();
		if (contentType != null) {
			return List.of(contentType);
		}
		try {
			List<MediaType> types = new ArrayList<>(MediaType.parseMediaTypes(accept));
			types.sort(Comparator.comparingDouble(MediaType::getQualityValue).reversed());
			if (!types.isEmpty()) {
				return types;
			}
		}
		catch (InvalidMediaTypeException ex) {
			// a malformed Accept header asks for nothing in particular
		}
		return List.of(MediaType.ALL);
	}

}
