package dev.ratelimit.grpc;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.server.PathContainer;
import org.springframework.util.ClassUtils;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.DetachedCall;
import dev.ratelimit.rules.flow.HeaderFields;
import dev.ratelimit.rules.flow.RateLimitRequest;

/**
 * One gRPC call as the {@link dev.ratelimit.rules.flow.RateLimitFlow} reads it: its path is the full method name as gRPC
 * sends it over HTTP/2 ({@code /helloworld.Greeter/SayHello}, always {@code POST}), its headers are the call's
 * metadata, its client address the peer's (or the trusted proxies' forwarded header), its principal Spring
 * Security's. Decided on the thread gRPC starts the call on (the server's executor), which may block; the exchange of
 * one of its messages ({@link #forMessage}) without blocking. What the flow
 * writes (headers, a refusal, charges to settle) is kept for the interceptors to send.
 */
final class GrpcExchange extends DetachedCall implements RateLimitRequest {

	private static final boolean SECURITY_PRESENT = ClassUtils.isPresent(
			"org.springframework.security.core.context.SecurityContextHolder", GrpcExchange.class.getClassLoader());

	/** Spring gRPC's security, which needs spring-security-config as well. */
	static final boolean GRPC_SECURITY_PRESENT = SECURITY_PRESENT && ClassUtils
		.isPresent("org.springframework.grpc.server.security.GrpcSecurity", GrpcExchange.class.getClassLoader());

	private final @Nullable ServerCall<?, ?> call;

	private final @Nullable Metadata metadata;

	private final ClientAddressResolver addresses;

	private final String target;

	private @Nullable PathContainer path;

	private @Nullable String clientAddress;

	private @Nullable HttpHeaders headers;

	/** Whether this is the exchange of one message of a call, decided without blocking. */
	private final boolean message;

	/** The principal of a message's call, read when the call was decided; unused by a call's own exchange. */
	private final @Nullable String principal;

	/**
	 * Creates the exchange of a call.
	 * @param call the call, or {@code null} for an exchange that only answers a refusal (a limited bean method
	 * that the service called threw), of a call the rules did not take
	 * @param metadata the call's headers, or {@code null} with no call
	 * @param addresses resolves client addresses
	 */
	GrpcExchange(@Nullable ServerCall<?, ?> call, @Nullable Metadata metadata, ClientAddressResolver addresses) {
		this.call = call;
		this.metadata = metadata;
		this.addresses = addresses;
		this.target = (call != null) ? "/" + call.getMethodDescriptor().getFullMethodName() : "";
		this.message = false;
		this.principal = null;
	}

	private GrpcExchange(GrpcExchange call, @Nullable String principal) {
		this.call = call.call;
		this.metadata = call.metadata;
		this.addresses = call.addresses;
		this.target = call.target;
		this.path = call.path;
		this.clientAddress = call.clientAddress;
		this.message = true;
		this.principal = principal;
	}

	/**
	 * Returns the exchange of one message the client sends on this call ({@code charge-per-message}): the call's
	 * metadata, client address and principal, decided without blocking (a message arrives on the call's executor, which
	 * may be the transport's), with rate-limit values and a refusal of its own.
	 * @param principal the call's principal, read when the call was decided
	 * @return the message's exchange
	 */
	GrpcExchange forMessage(@Nullable String principal) {
		return new GrpcExchange(this, principal);
	}

	/**
	 * Returns the name of the principal of the call the calling thread serves, for the exchanges of its messages.
	 * @return the name, or {@code null} when anonymous
	 */
	static @Nullable String currentPrincipal() {
		return SECURITY_PRESENT ? SecurityPrincipal.name() : null;
	}

	@Override
	public String method() {
		return "POST";
	}

	@Override
	public PathContainer path() {
		PathContainer path = this.path;
		if (path == null) {
			path = PathContainer.parsePath(this.target);
			this.path = path;
		}
		return path;
	}

	@Override
	public String target() {
		return this.target;
	}

	@Override
	public String describe() {
		return "gRPC " + this.target;
	}

	@Override
	public String clientAddress() {
		String address = this.clientAddress;
		if (address == null) {
			String remote = remoteAddress();
			address = this.addresses.resolve(remote.isEmpty() ? null : remote, this::headerValues);
			this.clientAddress = address;
		}
		return address;
	}

	@Override
	public String remoteAddress() {
		SocketAddress remote = (this.call != null) ? this.call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR) : null;
		if (remote instanceof InetSocketAddress inet) {
			InetAddress address = inet.getAddress();
			return (address != null) ? address.getHostAddress() : inet.getHostString();
		}
		// an in-process call has no network peer
		return "";
	}

	@Override
	public @Nullable String header(String name) {
		List<String> values = headerValues(name);
		return values.isEmpty() ? null : values.get(0);
	}

	/** Every value of a metadata key; a binary one ({@code -bin}) in base64, as HTTP/2 carries it. */
	private List<String> headerValues(String name) {
		Metadata metadata = this.metadata;
		String key = name.toLowerCase(Locale.ROOT);
		if (metadata == null) {
			return List.of();
		}
		if (key.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
			Iterable<byte[]> values = metadata.getAll(Metadata.Key.of(key, Metadata.BINARY_BYTE_MARSHALLER));
			List<String> encoded = new ArrayList<>();
			if (values != null) {
				values.forEach((value) -> encoded.add(Base64.getEncoder().withoutPadding().encodeToString(value)));
			}
			return encoded;
		}
		if (key.startsWith(":")) {
			// pseudo-headers are no metadata
			return List.of();
		}
		Iterable<String> values = metadata.getAll(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER));
		List<String> read = new ArrayList<>(1);
		if (values != null) {
			values.forEach(read::add);
		}
		return read;
	}

	@Override
	public CompletionStage<@Nullable String> principal() {
		return CompletableFuture.completedFuture(this.message ? this.principal : currentPrincipal());
	}

	/**
	 * A gRPC call has no query string: {@code param:<name>} keys find nothing (the rule's missing-key setting decides),
	 * as by default; nor key resolvers of the web stacks.
	 */
	@Override
	public CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
		return CompletableFuture.failedFuture(new IllegalStateException("Rate-limit rule '" + rule.name()
				+ "' has a key (" + rule.key().spelling() + ") that gRPC calls do not have; key it by ip, header:<name> "
				+ "or principal"));
	}

	@Override
	public boolean mayBlock() {
		return !this.message;
	}

	@Override
	public void writeHeaders(HttpHeaders headers) {
		this.headers = headers;
	}

	/** Adds the rate-limit values of the rules applied so far to the call's headers or trailers. */
	void addHeadersTo(Metadata target) {
		HttpHeaders written = this.headers;
		if (written != null) {
			HeaderFields.forEach(written, (name, value) -> {
				Metadata.Key<String> key = Metadata.Key.of(name.toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER);
				// once: a refusal's trailers carry them already
				target.removeAll(key);
				target.put(key, value);
			});
		}
	}

}
