package dev.ratelimit.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.ratelimit.testsupport.ClosedPort;
import dev.ratelimit.testsupport.RedisTestServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(OutputCaptureExtension.class)
class RedisAtStartReportTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class));

	@Test
	void warnsOnceWhereRedisWasLookedForAndWhatTheFailureModeDoes(CapturedOutput output) {
		int port = ClosedPort.reserve();
		this.runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
				"ratelimit.failure-mode=fail-closed")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				String warning = "Redis did not answer at 127.0.0.1:" + port + " while the application started: rate"
						+ " limits are not enforced across instances until it does. ratelimit.failure-mode=fail-closed:"
						+ " requests under a rule are refused with 503.";
				assertThat(output.getOut()).contains(warning);
				assertThat(output.getOut().split("Redis did not answer at ", -1)).hasSize(2);
			});
	}

	@Test
	void saysNothingWhenRedisAnswers(CapturedOutput output) {
		this.runner.withPropertyValues("spring.data.redis.url=" + RedisTestServer.shared().url())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output.getOut()).doesNotContain("Redis did not answer at");
			});
	}

	@Test
	void docsShowTheWarningAsItIsWritten() throws java.io.IOException {
		String operations = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "operations.md"));
		assertThat(operations).contains(RedisAtStartReport.message("127.0.0.1:6379", dev.ratelimit.FailureMode.FAIL_OPEN));
	}

	@Test
	void namesWhatEachFailureModeDoesToRequests() {
		assertThat(RedisAtStartReport.message("localhost:6379", dev.ratelimit.FailureMode.FAIL_OPEN))
			.contains("ratelimit.failure-mode=fail-open: requests pass unlimited.");
		assertThat(RedisAtStartReport.message("localhost:6379", dev.ratelimit.FailureMode.LOCAL))
			.contains("ratelimit.failure-mode=local: each instance enforces the limits in its own memory.");
	}

}
