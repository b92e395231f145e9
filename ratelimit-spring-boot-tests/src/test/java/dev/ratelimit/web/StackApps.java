package dev.ratelimit.web;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;

/**
 * One application per {@link WebStack} for a test class, started when a test first asks for it and closed by
 * the class's {@code @AfterAll}: the cases of a parameterized test share it, each starting with full budgets.
 */
public final class StackApps implements AutoCloseable {

	private final Map<String, ?> properties;

	private final Function<WebStack, Class<?>[]> sources;

	private final Map<WebStack, StackApp> running = new EnumMap<>(WebStack.class);

	public StackApps(Map<String, ?> properties, Class<?>... sources) {
		this(properties, (stack) -> sources);
	}

	/**
	 * Creates the applications with configuration of each stack's own (Spring Security's, say).
	 * @param properties the test's properties
	 * @param sources the configuration classes of a stack
	 */
	public StackApps(Map<String, ?> properties, Function<WebStack, Class<?>[]> sources) {
		this.properties = properties;
		this.sources = sources;
	}

	/**
	 * Returns the application of a stack, started if need be, with every budget of earlier tests deleted.
	 * @param stack the stack
	 * @return the application
	 */
	public synchronized StackApp on(WebStack stack) {
		StackApp app = this.running.computeIfAbsent(stack, (s) -> s.start(this.properties, this.sources.apply(s)));
		app.deleteBudgets();
		return app;
	}

	@Override
	public synchronized void close() {
		this.running.values().forEach(StackApp::close);
		this.running.clear();
	}

}
