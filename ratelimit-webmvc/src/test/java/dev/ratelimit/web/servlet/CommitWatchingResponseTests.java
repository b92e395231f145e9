package dev.ratelimit.web.servlet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every way a servlet response commits its status is told first, once, with that status, while nothing is sent yet.
 */
class CommitWatchingResponseTests {

	private final MockHttpServletResponse container = new MockHttpServletResponse();

	private final List<Integer> told = new ArrayList<>();

	private final CommitWatchingResponse response = new CommitWatchingResponse(this.container, (status) -> {
		// told before the container commits
		assertThat(this.container.isCommitted()).isFalse();
		this.told.add(status);
	});

	@Test
	void tellsTheStatusBeforeFlushBuffer() throws IOException {
		this.response.setStatus(200);
		this.response.getOutputStream().write(1);
		assertThat(this.told).isEmpty();
		this.response.flushBuffer();
		this.response.flushBuffer();
		assertThat(this.told).containsExactly(200);
		assertThat(this.container.isCommitted()).isTrue();
	}

	@Test
	void tellsTheStatusBeforeAFlushOrACloseOfTheBody() throws IOException {
		this.response.setStatus(404);
		this.response.getOutputStream().flush();
		this.response.getOutputStream().close();
		assertThat(this.told).containsExactly(404);
		CommitWatchingResponse other = new CommitWatchingResponse(new MockHttpServletResponse(), this.told::add);
		other.setStatus(201);
		other.getWriter().close();
		assertThat(this.told).containsExactly(404, 201);
	}

	@Test
	void tellsTheStatusBeforeAWriteThatFillsTheBuffer() throws IOException {
		this.response.setStatus(200);
		this.response.getOutputStream().write(new byte[this.response.getBufferSize() - 1]);
		assertThat(this.told).isEmpty();
		this.response.getOutputStream().write(new byte[2]);
		assertThat(this.told).containsExactly(200);
	}

	@Test
	void countsAWritersCharactersAtTheMostBytesOneTakes() throws IOException {
		this.response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		this.response.setStatus(200);
		// three bytes at most a character in UTF-8
		this.response.getWriter().write("x".repeat(this.response.getBufferSize() / 3 - 1));
		assertThat(this.told).isEmpty();
		this.response.getWriter().write("xx");
		assertThat(this.told).containsExactly(200);
	}

	@Test
	void tellsTheStatusBeforeAWriteThatReachesTheContentLength() throws IOException {
		this.response.setStatus(200);
		this.response.setContentLength(10);
		this.response.getOutputStream().write(new byte[9]);
		assertThat(this.told).isEmpty();
		this.response.getOutputStream().write(1);
		assertThat(this.told).containsExactly(200);
	}

	@Test
	void tellsTheStatusOfSendErrorAndSendRedirect() throws IOException {
		this.response.setStatus(200);
		this.response.sendError(401);
		assertThat(this.told).containsExactly(401);
		CommitWatchingResponse redirected = new CommitWatchingResponse(new MockHttpServletResponse(), this.told::add);
		redirected.sendRedirect("/elsewhere");
		assertThat(this.told).containsExactly(401, 302);
	}

	@Test
	void tellsNothingOfAResponseCommittedAlready() throws IOException {
		this.container.setCommitted(true);
		this.response.flushBuffer();
		assertThat(this.told).isEmpty();
	}

	@Test
	void countsAgainAfterTheBufferIsReset() throws IOException {
		this.response.setStatus(200);
		this.response.getOutputStream().write(new byte[this.response.getBufferSize() - 1]);
		this.response.resetBuffer();
		this.response.getOutputStream().write(new byte[2]);
		assertThat(this.told).isEmpty();
	}

}
