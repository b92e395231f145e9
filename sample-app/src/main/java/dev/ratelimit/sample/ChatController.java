package dev.ratelimit.sample;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import dev.ratelimit.rules.flow.RateLimitContext;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The new kinds of limits: tokens per user per day for a chat endpoint, whose cost is known only once the answer is
 * ready ({@code chat-tokens}: cost-from), a soft limit that answers with a cheaper model instead of refusing
 * ({@code chat-fast}: enforce=false), and exports limited by how many run at once ({@code exports}: concurrency).
 */
@RestController
class ChatController {

	/** What each word of a prompt costs the model, in tokens, prompt and answer together. */
	static final int TOKENS_PER_WORD = 40;

	/**
	 * Answers a prompt, and tells the tokens it cost in {@code X-Tokens-Used}, which the {@code chat-tokens} rule
	 * charges (and keeps from the client); past 5 chats a minute ({@code chat-fast}) the answer comes from the small
	 * model.
	 */
	@PostMapping("/api/chat")
	ResponseEntity<Map<String, Object>> chat(@RequestParam String prompt, RateLimitContext limits) {
		boolean cheaper = limits.exceeded("chat-fast");
		int tokens = prompt.strip().split("\\s+").length * TOKENS_PER_WORD / (cheaper ? 2 : 1);
		Map<String, Object> answer = new LinkedHashMap<>();
		answer.put("model", cheaper ? "small" : "large");
		answer.put("answer", "You said: " + prompt);
		answer.put("tokens", tokens);
		answer.put("tokensLeftToday", limits.remaining("chat-tokens").orElse(-1L));
		return ResponseEntity.ok().header("X-Tokens-Used", Integer.toString(tokens)).body(answer);
	}

	/** A long export: the {@code exports} rule lets 2 per user run at once, across every instance. */
	@PostMapping("/api/exports/{report}")
	Callable<Export> export(@PathVariable String report,
			@RequestParam(defaultValue = "1500") long millis) {
		return () -> {
			Thread.sleep(Math.min(millis, 10_000));
			return new Export(report, "exported");
		};
	}

	/**
	 * A finished export, its members in this order in JSON.
	 * @param report the report exported
	 * @param status always {@code exported}
	 */
	record Export(String report, String status) {
	}

}
