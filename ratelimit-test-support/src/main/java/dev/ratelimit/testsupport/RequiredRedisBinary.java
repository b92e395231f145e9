package dev.ratelimit.testsupport;

import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The {@code redis-server} binary a test needs, or the reason it is skipped: a machine without Redis 7 or a
 * TLS-capable binary skips those tests, while in CI ({@code CI=true}), where {@code .ci/run} installs them, a
 * missing binary fails. As an execution condition (auto-detected where JUnit's extension auto-detection is on,
 * as in the build's executions pinned to one binary) it skips every test of a run whose
 * {@value RedisBinary#SELECTION_PROPERTY} names a binary this machine lacks.
 */
public final class RequiredRedisBinary implements ExecutionCondition {

	/**
	 * Returns the binary {@code selection} names, skipping (or, in CI, failing) the calling test when this
	 * machine has none or, with {@code tls}, when it cannot serve TLS.
	 * @param selection {@code embedded} or {@code installed}
	 * @param tls whether the test needs TLS
	 * @return the executable
	 */
	public static Path find(String selection, boolean tls) {
		Optional<Path> binary = RedisBinary.selected(selection);
		String missing = (binary.isEmpty()) ? missing(selection)
				: (tls && !RedisBinary.supportsTls(binary.get()))
						? binary.get() + " was built without TLS: install Debian's redis-server (apt-get install redis-server), as .ci/run does"
						: null;
		if (missing != null) {
			if (inCi()) {
				Assertions.fail("CI=true, so this test must run: " + missing);
			}
			Assumptions.abort(missing);
		}
		return binary.get();
	}

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		String selection = System.getProperty(RedisBinary.SELECTION_PROPERTY);
		if (selection == null || selection.isBlank() || RedisBinary.selected(selection.strip()).isPresent()) {
			return ConditionEvaluationResult.enabled("the selected redis-server is here");
		}
		if (inCi()) {
			return ConditionEvaluationResult.enabled("CI=true: the tests run, and fail, without the binary");
		}
		return ConditionEvaluationResult.disabled(missing(selection.strip()));
	}

	private static String missing(String selection) {
		return RedisBinary.SELECTION_PROPERTY + "=" + selection
				+ ": no redis-server on the PATH; install Debian's redis-server (apt-get install redis-server), as .ci/run does,"
				+ " to run these tests against Redis 7";
	}

	private static boolean inCi() {
		return "true".equalsIgnoreCase(System.getenv("CI"));
	}

}
