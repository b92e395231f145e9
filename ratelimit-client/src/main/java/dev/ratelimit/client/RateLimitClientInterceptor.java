package dev.ratelimit.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * Takes a permit from a partner's budget ({@code ratelimit.clients.<name>.*}) before each gRPC call whose method
 * ({@code grpc-services}) or channel ({@code grpc-channels}) the budget covers, as the HTTP clients' interceptors do:
 * the call starts once it has its permit, waiting for one up to {@code max-wait} on a timer, so that no thread is
 * held (a blocking stub's thread waits for the call, as it waits for any answer); a call that gets none ends on the
 * client side with {@code RESOURCE_EXHAUSTED}, a {@code google.rpc.RetryInfo} and a {@code retry-after} trailer, and
 * never reaches the partner. The partner's own {@code RESOURCE_EXHAUSTED} with a {@code RetryInfo} (or a
 * {@code retry-after} trailer) blocks the budget on every instance for that long, at most {@code max-learned-block},
 * before the caller sees it. Usable on any channel ({@code ClientInterceptors.intercept(channel, interceptor)} or
 * {@code ManagedChannelBuilder.intercept}); the starter adds it to every channel of Spring gRPC's channel factory.
 *
 * @since 0.1.0
 */
public final class RateLimitClientInterceptor implements ClientInterceptor {

	private final PartnerBudgets budgets;

	private final @Nullable String channel;

	/**
	 * Creates the interceptor for a channel whose name it does not know: the budgets' {@code grpc-services} patterns
	 * apply, their {@code grpc-channels} do not.
	 * @param budgets the partners' budgets
	 */
	public RateLimitClientInterceptor(PartnerBudgets budgets) {
		this(budgets, null);
	}

	private RateLimitClientInterceptor(PartnerBudgets budgets, @Nullable String channel) {
		this.budgets = budgets;
		this.channel = channel;
	}

	/**
	 * Returns the interceptor for a channel of a name: the budgets whose {@code grpc-channels} name it cover every call
	 * of the channel.
	 * @param name the channel's name, as Spring gRPC's channel factory names it
	 * @return an interceptor for that channel
	 */
	public RateLimitClientInterceptor forChannel(String name) {
		return new RateLimitClientInterceptor(this.budgets, name);
	}

	@Override
	public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
			CallOptions callOptions, Channel next) {
		GrpcMethod call = new GrpcMethod(this.channel, method.getFullMethodName());
		PartnerBudget budget = this.budgets.find(call);
		if (budget == null) {
			return next.newCall(method, callOptions);
		}
		return new PermittedCall<>(budget, call, () -> next.newCall(method, callOptions), callOptions.getExecutor());
	}

}
