package dev.ratelimit.rules.flow;

import org.jspecify.annotations.Nullable;

/**
 * A blocking call that is no request and has no client address, such as a bean method's outside any request, named by
 * its description; it reads no key unless a test's subclass says otherwise.
 */
public class TestCall extends DetachedCall {

	private final String description;

	/**
	 * @param description what {@link #describe()} returns
	 */
	public TestCall(String description) {
		this.description = description;
	}

	@Override
	public String describe() {
		return this.description;
	}

	@Override
	public @Nullable String clientAddress() {
		return null;
	}

	@Override
	public boolean mayBlock() {
		return true;
	}

}
