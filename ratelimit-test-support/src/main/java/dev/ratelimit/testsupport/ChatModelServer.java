package dev.ratelimit.testsupport;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.jspecify.annotations.Nullable;

/**
 * A chat model on 127.0.0.1 that speaks OpenAI's chat completions API ({@code POST /v1/chat/completions}, the JDK's HTTP
 * server on a port of its choosing): a blocking call gets one completion with its {@code usage}, a streamed one
 * ({@code "stream": true}) gets its text in three chunks as server-sent events, then, as
 * {@code stream_options.include_usage} asks, a last chunk without choices that carries the {@code usage}, then
 * {@code [DONE]}. Every answer has the {@code x-ratelimit-*} headers OpenAI sends; a call the test arms it to refuse gets OpenAI's {@code 429}. Each call uses the prompt and
 * completion tokens the test set; the server adds up the tokens it reported, and fails the calls a test arms it to
 * fail with {@code 500}. The Spring AI tests and the sample application's tests point Spring AI's OpenAI client at it
 * ({@code spring.ai.openai.base-url}); it answers Anthropic's Messages API too ({@link #anthropicBaseUrl()}), blocking
 * calls only. A test stops it with {@link #close()}.
 */
public final class ChatModelServer implements AutoCloseable {

	/** The text of every answer. */
	public static final String ANSWER = "Redis keeps the counts.";

	private final HttpServer server;

	private final ExecutorService executor = Executors.newFixedThreadPool(16);

	private final AtomicLong reportedTokens = new AtomicLong();

	private final AtomicInteger calls = new AtomicInteger();

	private final AtomicInteger failNext = new AtomicInteger();

	private final AtomicReference<@Nullable Map<String, String>> refuseNext = new AtomicReference<>();

	private final AtomicReference<@Nullable Map<String, String>> headersNext = new AtomicReference<>();

	private volatile int promptTokens = 30;

	private volatile int completionTokens = 70;

	/**
	 * Starts the server on 127.0.0.1, on a free port.
	 * @throws IOException when it cannot listen
	 */
	public ChatModelServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/", this::handle);
		this.server.setExecutor(this.executor);
		this.server.start();
	}

	/**
	 * Returns the base URL Spring AI's OpenAI client is given ({@code spring.ai.openai.base-url}).
	 * @return the URL, ending in {@code /v1}
	 */
	public String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + "/v1";
	}

	/**
	 * Sets the usage the next calls report.
	 * @param prompt the prompt's tokens
	 * @param completion the completion's tokens
	 */
	public void usage(int prompt, int completion) {
		this.promptTokens = prompt;
		this.completionTokens = completion;
	}

	/**
	 * Answers the next calls with {@code 500}, before any token.
	 * @param times how many calls
	 */
	public void failNext(int times) {
		this.failNext.set(times);
	}

	/**
	 * Refuses the next call with {@code 429}, as OpenAI does when a limit of the organisation is reached: its
	 * {@code rate_limit_exceeded} error, and the headers given (such as {@code x-ratelimit-remaining-requests: 0} and
	 * {@code x-ratelimit-reset-requests: 6m0s}).
	 * @param headers the refusal's headers, by name
	 */
	public void refuseNext(Map<String, String> headers) {
		this.refuseNext.set(headers);
	}

	/**
	 * Sends headers with the next answer, such as the {@code anthropic-ratelimit-*} headers of a provider with no
	 * requests left.
	 * @param headers the headers, by name
	 */
	public void headersNext(Map<String, String> headers) {
		this.headersNext.set(headers);
	}

	/**
	 * Returns the base URL Spring AI's Anthropic client is given ({@code spring.ai.anthropic.base-url}, or
	 * {@code AnthropicChatOptions.baseUrl}): the server answers Anthropic's Messages API ({@code POST /v1/messages},
	 * blocking) too.
	 * @return the URL, without a path
	 */
	public String anthropicBaseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	/**
	 * Returns the tokens (total) reported to every call so far.
	 * @return the tokens
	 */
	public long reportedTokens() {
		return this.reportedTokens.get();
	}

	/**
	 * Returns the calls that reached the model, failed and refused ones included.
	 * @return the calls
	 */
	public int calls() {
		return this.calls.get();
	}

	private void handle(HttpExchange exchange) throws IOException {
		String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
		this.calls.incrementAndGet();
		String path = exchange.getRequestURI().getPath();
		if (path.endsWith("/v1/messages")) {
			message(exchange);
			return;
		}
		if (!path.endsWith("/chat/completions")) {
			send(exchange, 404, "application/json", "{\"error\":{\"message\":\"not found\"}}");
			return;
		}
		Map<String, String> refusal = this.refuseNext.getAndSet(null);
		if (refusal != null) {
			refusal.forEach(exchange.getResponseHeaders()::set);
			send(exchange, 429, "application/json", "{\"error\":{\"message\":\"Rate limit reached for gpt-test on "
					+ "requests per min (RPM): Limit 5000, Used 5000, Requested 1.\",\"type\":\"requests\","
					+ "\"param\":null,\"code\":\"rate_limit_exceeded\"}}");
			return;
		}
		if (this.failNext.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
			send(exchange, 500, "application/json",
					"{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}");
			return;
		}
		int prompt = this.promptTokens;
		int completion = this.completionTokens;
		this.reportedTokens.addAndGet(prompt + completion);
		rateLimitHeaders(exchange);
		String usage = "{\"prompt_tokens\":" + prompt + ",\"completion_tokens\":" + completion + ",\"total_tokens\":"
				+ (prompt + completion) + "}";
		if (body.replace(" ", "").contains("\"stream\":true")) {
			stream(exchange, usage);
		}
		else {
			send(exchange, 200, "application/json", "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
					+ "\"created\":1765000000,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"message\":"
					+ "{\"role\":\"assistant\",\"content\":\"" + ANSWER + "\"},\"logprobs\":null,"
					+ "\"finish_reason\":\"stop\"}],\"usage\":" + usage + "}");
		}
	}

	/** Answers a call of Anthropic's Messages API with one message and its usage. */
	private void message(HttpExchange exchange) throws IOException {
		int prompt = this.promptTokens;
		int completion = this.completionTokens;
		this.reportedTokens.addAndGet(prompt + completion);
		Map<String, String> extra = this.headersNext.getAndSet(null);
		if (extra != null) {
			extra.forEach(exchange.getResponseHeaders()::set);
		}
		send(exchange, 200, "application/json", "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
				+ "\"model\":\"claude-test\",\"content\":[{\"type\":\"text\",\"text\":\"" + ANSWER + "\"}],"
				+ "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":" + prompt
				+ ",\"output_tokens\":" + completion + "}}");
	}

	private static void rateLimitHeaders(HttpExchange exchange) {
		var headers = exchange.getResponseHeaders();
		headers.set("x-ratelimit-limit-requests", "5000");
		headers.set("x-ratelimit-remaining-requests", "4999");
		headers.set("x-ratelimit-reset-requests", "12ms");
		headers.set("x-ratelimit-limit-tokens", "800000");
		headers.set("x-ratelimit-remaining-tokens", "799900");
		headers.set("x-ratelimit-reset-tokens", "7ms");
	}

	private void stream(HttpExchange exchange, String usage) throws IOException {
		exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
		exchange.sendResponseHeaders(200, 0);
		try (OutputStream out = exchange.getResponseBody()) {
			String[] parts = { "Redis ", "keeps ", "the counts." };
			for (int i = 0; i < parts.length; i++) {
				String delta = (i == 0) ? "{\"role\":\"assistant\",\"content\":\"" + parts[i] + "\"}"
						: "{\"content\":\"" + parts[i] + "\"}";
				event(out, chunk("[{\"index\":0,\"delta\":" + delta + ",\"logprobs\":null,\"finish_reason\":"
						+ ((i == parts.length - 1) ? "\"stop\"" : "null") + "}]", null));
			}
			event(out, chunk("[]", usage));
			event(out, "[DONE]");
		}
	}

	private static String chunk(String choices, @Nullable String usage) {
		return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1765000000,"
				+ "\"model\":\"gpt-test\",\"choices\":" + choices + ((usage != null) ? ",\"usage\":" + usage : "") + "}";
	}

	private static void event(OutputStream out, String data) throws IOException {
		out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
		out.flush();
	}

	private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
		byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().set("Content-Type", type);
		exchange.sendResponseHeaders(status, bytes.length);
		try (OutputStream out = exchange.getResponseBody()) {
			out.write(bytes);
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
		this.executor.shutdownNow();
	}

}
