package dev.ratelimit.testsupport;

import java.net.URL;
import java.security.CodeSource;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.utility.JavaModule;
import org.jspecify.annotations.Nullable;

/**
 * The figure of one call's path through ratelimit, for docs/architecture.md: the main source files of
 * {@code dev.ratelimit} whose code runs for one call of an entry point, grouped by module and package, and how many
 * times the call goes from a class of one package to a class of another. Every method and constructor of the main
 * classes of {@code dev.ratelimit} (not the tests', not this module's) is instrumented with ByteBuddy, once the call
 * has been made a first time, to record its class while the second call is measured, in the order the calls happen,
 * on every thread.
 * <p>
 * What runs on its own in the background is recorded for a while with no call in flight, and left out of the call's
 * path (the figure names what it left out). The call is recorded until a while after it returned, so that what it
 * settles after its answer is counted too.
 * <p>
 * The classes that print figures are named {@code *Figures}, never {@code *Tests}: the build does not run them;
 * {@code -Dtest=SomeFigures} does.
 */
public final class CallPathFigure {

	/** How long the background is recorded, and how long a call is recorded after it returned. */
	private static final Duration QUIET = Duration.ofMillis(300);

	private static final Pattern CLASSES = Pattern.compile(".*/([^/]+)/target/(test-)?classes/?");

	private static final Pattern JAR = Pattern.compile(".*/([^/]+?)-[0-9][^/]*\\.jar");

	private final String entryPoint;

	private final List<Step> path;

	private final Set<Step> background;

	private CallPathFigure(String entryPoint, List<Step> path, Set<Step> background) {
		this.entryPoint = entryPoint;
		this.path = path;
		this.background = background;
	}

	/**
	 * Makes a call once to warm the application up, measures the second call, and prints its figure.
	 * @param entryPoint what the figure is of, for example {@code "servlet filter"}
	 * @param call one call of the entry point, which checks that it was allowed
	 * @return the figure of the second call
	 */
	public static CallPathFigure measure(String entryPoint, Runnable call) {
		call.run();
		// what the first call settles after its answer is not background
		quiet();
		Recorder.instrumentLoaded();
		Set<Step> background = new LinkedHashSet<>(Recorder.during(CallPathFigure::quiet));
		List<Step> path = new ArrayList<>(Recorder.during(() -> {
			call.run();
			quiet();
		}));
		path.removeAll(background);
		CallPathFigure figure = new CallPathFigure(entryPoint, path, background);
		System.out.println(figure.text());
		return figure;
	}

	/**
	 * Returns the main source files the call ran code of, by the qualified name of their top-level class.
	 * @return the files' classes, sorted
	 */
	public Set<String> files() {
		Set<String> files = new TreeSet<>();
		this.path.forEach((step) -> files.add(step.file()));
		return files;
	}

	/**
	 * Returns the packages of those files.
	 * @return the packages, sorted
	 */
	public Set<String> packages() {
		Set<String> packages = new TreeSet<>();
		this.path.forEach((step) -> packages.add(step.type().getPackageName()));
		return packages;
	}

	/**
	 * Returns how many times the call went from a class of one package to a class of another: recorded calls one
	 * after the other whose classes are in different packages.
	 * @return the number of package crossings
	 */
	public int crossings() {
		return Math.max(0, packageRuns().size() - 1);
	}

	/**
	 * Returns the figure as it is printed: counts, files by module and package, the packages in the order the call
	 * ran through them, and what was left out as background.
	 * @return the figure
	 */
	public String text() {
		Map<String, Map<String, Set<String>>> byModule = new TreeMap<>();
		for (Step step : this.path) {
			byModule.computeIfAbsent(module(step.type()), (module) -> new TreeMap<>())
				.computeIfAbsent(step.type().getPackageName(), (pkg) -> new TreeSet<>())
				.add(step.file().substring(step.file().lastIndexOf('.') + 1));
		}
		List<String> runs = packageRuns();
		Set<String> boundaries = new LinkedHashSet<>();
		for (int i = 1; i < runs.size(); i++) {
			boundaries.add(runs.get(i - 1) + " > " + runs.get(i));
		}
		StringBuilder text = new StringBuilder("FIGURE ").append(this.entryPoint)
			.append(": ")
			.append(files().size())
			.append(" main files in ")
			.append(packages().size())
			.append(" packages of ")
			.append(byModule.size())
			.append(" modules; ")
			.append(crossings())
			.append(" package crossings (")
			.append(boundaries.size())
			.append(" distinct) for one allowed call\n");
		byModule.forEach((module, packages) -> {
			int count = packages.values().stream().mapToInt(Set::size).sum();
			text.append("  ").append(module).append(" (").append(count).append(")\n");
			packages.forEach((pkg, files) -> text.append("    ")
				.append(pkg)
				.append(" (")
				.append(files.size())
				.append("): ")
				.append(String.join(", ", files))
				.append('\n'));
		});
		text.append("  packages in call order (under dev.ratelimit, api = dev.ratelimit itself):\n   ");
		int width = 3;
		for (int i = 0; i < runs.size(); i++) {
			String step = ((i > 0) ? " > " : " ") + shortName(runs.get(i));
			if (width + step.length() > 116) {
				text.append("\n   ");
				width = 3;
			}
			text.append(step);
			width += step.length();
		}
		Set<String> background = new TreeSet<>();
		this.background.forEach((step) -> background.add(step.method()));
		text.append("\n  left out as background (seen with no call in flight): ")
			.append(background.isEmpty() ? "nothing" : String.join(", ", background))
			.append('\n');
		if (!Recorder.failures.isEmpty()) {
			text.append("  not instrumented (not counted): ").append(String.join(", ", Recorder.failures)).append('\n');
		}
		return text.toString();
	}

	/** The packages the call ran through, in order, each stay in one package once. */
	private List<String> packageRuns() {
		List<String> runs = new ArrayList<>();
		for (Step step : this.path) {
			String pkg = step.type().getPackageName();
			if (runs.isEmpty() || !runs.get(runs.size() - 1).equals(pkg)) {
				runs.add(pkg);
			}
		}
		return runs;
	}

	private static String shortName(String pkg) {
		return pkg.equals("dev.ratelimit") ? "api" : pkg.substring("dev.ratelimit.".length());
	}

	/** The module a class comes from: its project's directory, or its jar's name without the version. */
	private static String module(Class<?> type) {
		CodeSource source = type.getProtectionDomain().getCodeSource();
		URL location = (source != null) ? source.getLocation() : null;
		if (location == null) {
			return "(unknown module)";
		}
		for (Pattern pattern : List.of(CLASSES, JAR)) {
			Matcher matcher = pattern.matcher(location.getPath());
			if (matcher.matches()) {
				return matcher.group(1);
			}
		}
		return location.getPath();
	}

	// a figure, not a test: the quiet time is part of what is measured
	private static void quiet() {
		try {
			Thread.sleep(QUIET.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * One method or constructor that ran.
	 * @param type its class
	 * @param name its name
	 */
	private record Step(Class<?> type, String name) {

		/** The qualified name of the top-level class, which names the source file. */
		String file() {
			String name = this.type.getName();
			int nested = name.indexOf('$');
			return (nested < 0) ? name : name.substring(0, nested);
		}

		/** The class without its package, and the method's name. */
		String method() {
			return this.type.getName().substring(this.type.getPackageName().length() + 1) + "." + this.name;
		}

	}

	/**
	 * What the instrumented methods call: public because their code, in other packages, calls it; not for use.
	 */
	public static final class Recorder {

		private static final Queue<Step> steps = new ConcurrentLinkedQueue<>();

		private static volatile boolean on;

		private static final Set<String> failures = new ConcurrentSkipListSet<>();

		private static boolean installed;

		private Recorder() {
		}

		/**
		 * Records that a method or constructor runs, while a call is measured.
		 * @param type its class
		 * @param name its name
		 */
		public static void seen(Class<?> type, String name) {
			if (on) {
				steps.add(new Step(type, name));
			}
		}

		/**
		 * Instruments the main classes of ratelimit loaded so far, from their original code: once the call has been
		 * made, every class on its path is (a class loaded while the agent transforms another would be missed).
		 */
		static synchronized void instrumentLoaded() {
			Instrumentation instrumentation = ByteBuddyAgent.install();
			if (!installed) {
				new AgentBuilder.Default().disableClassFormatChanges()
					.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
					.ignore(ElementMatchers.not(ElementMatchers.nameStartsWith("dev.ratelimit.")))
					.type((type, loader, module, redefined, domain) -> mainClassOfRatelimit(type.getName(), domain))
					.transform((builder, type, loader, module, domain) -> builder.visit(
							Advice.to(Enter.class).on(ElementMatchers.isMethod().or(ElementMatchers.isConstructor()))))
					.with(new AgentBuilder.Listener.Adapter() {

						@Override
						public void onError(String typeName, @Nullable ClassLoader classLoader,
								@Nullable JavaModule module, boolean loaded, Throwable throwable) {
							failures.add(typeName + " (" + throwable + ")");
						}

					})
					.installOn(instrumentation);
				installed = true;
				return;
			}
			List<Class<?>> loaded = new ArrayList<>();
			for (Class<?> type : instrumentation.getAllLoadedClasses()) {
				if (instrumentation.isModifiableClass(type)
						&& mainClassOfRatelimit(type.getName(), type.getProtectionDomain())) {
					loaded.add(type);
				}
			}
			try {
				instrumentation.retransformClasses(loaded.toArray(new Class<?>[0]));
			}
			catch (UnmodifiableClassException ex) {
				throw new IllegalStateException(ex);
			}
		}

		/** What runs while {@code action} does, in order. */
		static synchronized List<Step> during(Runnable action) {
			steps.clear();
			on = true;
			try {
				action.run();
			}
			finally {
				on = false;
			}
			List<Step> seen = new ArrayList<>(steps);
			steps.clear();
			return seen;
		}

		private static boolean mainClassOfRatelimit(String name, @Nullable ProtectionDomain domain) {
			CodeSource source = (domain != null) ? domain.getCodeSource() : null;
			URL location = (source != null) ? source.getLocation() : null;
			if (!name.startsWith("dev.ratelimit.") || location == null) {
				return false;
			}
			String path = location.getPath();
			return !path.contains("/test-classes") && !path.contains("ratelimit-test-support");
		}

	}

	/** The code added at the start of every instrumented method and constructor. */
	static final class Enter {

		private Enter() {
		}

		@Advice.OnMethodEnter
		static void enter(@Advice.Origin Class<?> type, @Advice.Origin("#m") String name) {
			Recorder.seen(type, name);
		}

	}

}
