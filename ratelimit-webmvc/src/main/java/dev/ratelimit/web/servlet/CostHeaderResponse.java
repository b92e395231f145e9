package dev.ratelimit.web.servlet;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import org.jspecify.annotations.Nullable;

/**
 * A response whose handler may set the headers {@code cost-from} rules read the actual cost from: each such header's
 * value is kept for the settlement after the response, and the header is left out of the response unless its rules
 * expose it ({@code cost-from-expose}). A header set once the response is committed (after a streamed body) is kept
 * too, though no client would see it.
 */
final class CostHeaderResponse extends HttpServletResponseWrapper {

	/** The headers read, by lower-case name: whether each stays in the response. */
	private final Map<String, Boolean> headers;

	private final Map<String, String> values = new ConcurrentHashMap<>(2);

	CostHeaderResponse(HttpServletResponse response, Map<String, Boolean> headers) {
		super(response);
		this.headers = headers;
	}

	/** Returns the value a handler set to a cost header, or {@code null}. */
	@Nullable String cost(String name) {
		return this.values.get(name.toLowerCase(Locale.ROOT));
	}

	/** Keeps a cost header's value; returns whether the header goes into the response too. */
	private boolean kept(String name, String value) {
		Boolean exposed = this.headers.get(name.toLowerCase(Locale.ROOT));
		if (exposed == null) {
			return true;
		}
		this.values.put(name.toLowerCase(Locale.ROOT), value);
		return exposed;
	}

	@Override
	public void setHeader(String name, @Nullable String value) {
		if (value == null) {
			// the handler took the header back: it tells no cost
			this.values.remove(name.toLowerCase(Locale.ROOT));
			super.setHeader(name, null);
		}
		else if (kept(name, value)) {
			super.setHeader(name, value);
		}
	}

	@Override
	public void addHeader(String name, String value) {
		if (kept(name, value)) {
			super.addHeader(name, value);
		}
	}

	@Override
	public void setIntHeader(String name, int value) {
		if (kept(name, Integer.toString(value))) {
			super.setIntHeader(name, value);
		}
	}

	@Override
	public void addIntHeader(String name, int value) {
		if (kept(name, Integer.toString(value))) {
			super.addIntHeader(name, value);
		}
	}

	@Override
	public @Nullable String getHeader(String name) {
		String kept = cost(name);
		return (kept != null) ? kept : super.getHeader(name);
	}

	@Override
	public boolean containsHeader(String name) {
		return cost(name) != null || super.containsHeader(name);
	}

	@Override
	public Collection<String> getHeaders(String name) {
		String kept = cost(name);
		if (kept == null || Boolean.TRUE.equals(this.headers.get(name.toLowerCase(Locale.ROOT)))) {
			return super.getHeaders(name);
		}
		List<String> values = new ArrayList<>(super.getHeaders(name));
		values.add(kept);
		return values;
	}

}
