package dev.ratelimit.benchmarks;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.LocalDate;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The report of a made-up run ({@code report-fixture}): the templates, the targets file and the code that fills
 * them in must still make one document together.
 */
class ReportTests {

	private static String report;

	@BeforeAll
	static void renderTheFixture() throws Exception {
		Environment environment = new Environment(LocalDate.of(2026, 12, 2), 3120, "2 CPUs (`nproc`), a test machine",
				"0.10 0.20 0.30", "1.00 2.00 3.00", "17.0.15 (OpenJDK 64-Bit Server VM)", "6.8.1", "3.5.0");
		report = Report.markdown(RunResults.read(fixture()), Targets.load(), environment);
	}

	private static Path fixture() throws URISyntaxException {
		return Path.of(ReportTests.class.getResource("report-fixture").toURI());
	}

	@Test
	void fillsEveryPlaceholder() {
		assertThat(report).doesNotContain("{{").doesNotContain("}}").endsWith("out).\n");
	}

	@Test
	void hasEverySectionInOrder() {
		assertThat(report.lines().filter((line) -> line.startsWith("## "))).containsExactly("## Targets", "## Method",
				"## Allowed path: decisions per second, 10,000 keys", "## Ratios (medians; 1 / 8 / 64 threads)",
				"## Where the time goes (64 threads)", "## Asynchronous API: one thread, 64 decisions in flight",
				"## What bounds the allowed path", "## Steady state: pinned CPUs, client and Redis CPU per decision",
				"## Hot key: one key far over its limit", "## Cost against the number of keys (64 threads)",
				"## Redis memory per key (`MEMORY USAGE`, budget fully spent, window 1 minute)",
				"## What a rule costs an HTTP request", "## HTTP: latency the interceptor adds",
				"## HTTP: latency the WebFlux filter adds", "## Reproduce");
	}

	@Test
	void includesWhatARuleCostsAnHttpRequestAsHttpCostWroteIt() {
		assertThat(report).contains("| servlet /limited | 5,630 | 156.1 | 48% | 2.71 | 42.1 | 0.28 | 2.50 | 8.31 | 0 |\n");
	}

	@Test
	void saysWhenAndWhereItRan() {
		assertThat(report).contains("`ratelimit-benchmarks/run.sh`, run on 2026-12-02 in 52 minutes;")
			.contains("- **Machine**: 2 CPUs (`nproc`), a test machine. Load average when the run started: 0.10 0.20 0.30; "
					+ "when the report was written: 1.00 2.00 3.00 (other")
			.contains("Lettuce 6.8.1 through Spring Data Redis 3.5.0,")
			.contains("- **JMH**: mode sample time; 1 fork, 2 warm-up iterations of 2 s, 5 measurement iterations of 2 s,");
	}

	@Test
	void checksATargetThatIsMet() {
		assertThat(report).contains("| … ≥ 1.5 × Redisson | fixed 2.81×, counter 3.25×, bucket 2.65×, GCRA 2.96× | **yes** |\n")
			.contains("| HTTP: p99 added by the interceptor < 1 ms at a moderate load | 0.55 ms (p99 4.65 ms with the rule, "
					+ "4.10 ms without; all rounds pooled) | **yes** |\n");
	}

	@Test
	void checksATargetThatIsMissed() {
		assertThat(report).contains("| O(1) algorithms at 64 threads ≥ 0.8 × the physical limit at 64 in flight | "
				+ "fixed 0.39×, counter 0.49×, bucket 0.39×, GCRA 0.43× | **no** |\n")
			.contains("| O(1) algorithms through the async API (`tryAcquireAsync`), one thread, 64 decisions in flight ≥ 0.9 × "
					+ "the physical limit of the same script at 64 in flight | fixed 0.97×, counter 0.73×, bucket 0.97× (3 errors), "
					+ "GCRA 0.98× | **no** |\n")
			.contains("| O(1) memory per key constant at limits 10 / 1,000 / 1,000,000 (within 16 B: the stored numbers' digits) | "
					+ "fixed 93 / 103 / 104 B, counter 119 / 121 / 130 B, bucket 101 / 109 / 109 B, GCRA 84 / 92 / 120 B | **no** |\n");
	}

	@Test
	void saysWhatWasNotMeasured() {
		assertThat(report).contains("| HTTP: p99 added by the WebFlux filter < 1 ms at a moderate load | not measured: no WebFlux "
				+ "sample jar at sample-webflux/target/sample-webflux-0.1.0-SNAPSHOT.jar (module not built) | – |\n")
			.contains("## HTTP: latency the WebFlux filter adds\n\nNot measured in this run: no WebFlux sample jar at ");
	}

	@Test
	void checksTheSteadyStatesTargets() {
		assertThat(report).contains("| Redis CPU: fixed window ≤ 1.2 × the seed's script | 64 | fixed 1.48×, fixed+b 1.82× | **no** |\n")
			.contains("| Batching: p99 no worse than without | 64 | fixed 2,130 vs 2,954 µs, log 3,115 vs 3,208 µs, "
					+ "counter 1,976 vs 2,213 µs, bucket 2,608 vs 3,355 µs, GCRA 2,255 vs 2,784 µs | yes |\n")
			.contains("Inside Redis our fixed window executes 45,077 instructions per decision (47,344 when batched) "
					+ "against 11,980 for the seed's script, 3.76×.");
	}

	@Test
	void writesTheTablesRows() {
		assertThat(report).contains("| ours: fixed window | 4,028 <sub>3,704–4,626</sub> | 30,143 <sub>27,199–32,382</sub> | "
				+ "34,251 <sub>31,907–36,190</sub> | 0 / 0 |\n")
			.contains("| no limiter: Lettuce EVALSHA, fixed-window script | 6,240 <sub>6,240–6,240</sub> |")
			.contains("| ours: GCRA | 84 B | 92 B | 120 B |\n")
			.contains("| ours: sliding window log | 384 B | 102920 B | – |\n")
			.contains("| on | 8 | ")
			.contains("Responses other than 200 during the rounds: 1.\n");
	}

}
