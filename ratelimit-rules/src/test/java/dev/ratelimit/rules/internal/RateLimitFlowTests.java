package dev.ratelimit.rules.internal;

import dev.ratelimit.testsupport.RateLimitFields;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.ratelimit.rules.CidrBlock;
import dev.ratelimit.Algorithm;
import dev.ratelimit.LocalRateLimiter;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitPlanResolver;

import org.springframework.http.HttpHeaders;
import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;

import static org.assertj.core.api.Assertions.assertThat;
import dev.ratelimit.rules.LimitDefinition;
import dev.ratelimit.rules.MissingKey;
import dev.ratelimit.rules.PlanSource;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.flow.RateLimitObserver;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.ResponseStatuses;
import dev.ratelimit.rules.flow.AfterResponse;
import dev.ratelimit.rules.flow.AppliedLimit;
import dev.ratelimit.rules.flow.TestCall;
import dev.ratelimit.rules.flow.RateLimitRequest;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejection;
import dev.ratelimit.rules.TestRules;

/**
 * {@link RateLimitFlow}, without Redis or a web server: what it reads of an exchange, what it writes, and in
 * which order, on a blocking and on a non-blocking exchange alike. The limiter is the in-memory one.
 */
class RateLimitFlowTests {

	private final RateLimitRuleFactory factory = TestRules.factory(Algorithm.FIXED_WINDOW);

	private final LocalRateLimiter limiter = new LocalRateLimiter(1000);

	private final RateLimitRule byAddress = rule("by-ip", "/api/**", null);

	private final RateLimitRule byUser = rule("by-user", "/api/**", "principal");

	@Test
	void aRequestUnderItsLimitsGoesOnWithTheHeadersAndOneOverIsAnswered() {
		RateLimitFlow flow = flow(List.of(this.byAddress), AddressLists.NONE);
		for (boolean blocking : new boolean[] { true, false }) {
			FakeExchange first = new FakeExchange(blocking, "10.0.0." + (blocking ? 1 : 2));
			assertThat(flow.beforeAuthentication(first).join()).isTrue();
			assertThat(RateLimitFields.withoutPartitionKeys(first.headers.getFirst("RateLimit"))).matches("\"by-ip\";r=1;t=\\d+");
			assertThat(first.rejections).isEmpty();
			assertThat(flow.beforeAuthentication(new FakeExchange(blocking, first.clientAddress)).join()).isTrue();
			FakeExchange third = new FakeExchange(blocking, first.clientAddress);
			assertThat(flow.beforeAuthentication(third).join()).isFalse();
			assertThat(third.rejections).singleElement().isInstanceOfSatisfying(RateLimitRejection.Limited.class,
					(limited) -> {
						assertThat(limited.method()).isEqualTo("GET");
						assertThat(limited.path()).isEqualTo("/api/orders");
						assertThat(limited.violated()).extracting(AppliedLimit::policy).containsExactly("by-ip");
					});
			assertThat(RateLimitFields.withoutPartitionKeys(third.headers.getFirst("RateLimit"))).startsWith("\"by-ip\";r=0;t=");
			assertThat(third.resumed).isEqualTo(1);
		}
	}

	@Test
	void tellsTheObserverWhatEachAllowedRequestLeftOfItsRulesTightestLimit() {
		RateLimitRule twoLimits = this.factory.create("two-limits", List.of("/api/**"), List.of(),
				List.of(new LimitDefinition("minute", 10L, Duration.ofMinutes(1), null),
						new LimitDefinition("hour", 4L, Duration.ofHours(1), null)),
				null, null, MissingKey.CLIENT_ADDRESS, 1, null);
		List<String> left = new ArrayList<>();
		RateLimitObserver observer = new RateLimitObserver() {

			@Override
			public void onDecision(RateLimitRule rule, Outcome outcome, long nanos) {
				left.add(outcome.tag());
			}

			@Override
			public void onBudgetLeft(RateLimitRule rule, long remaining, long limit) {
				left.add(rule.name() + " " + remaining + "/" + limit);
			}

		};
		RateLimitFlow flow = engine(List.of(twoLimits), AddressLists.NONE).observer(observer).build().flow();
		for (int i = 0; i < 5; i++) {
			flow.beforeAuthentication(new FakeExchange(true, "10.0.0.9")).join();
		}
		// the hour's 4 is the tighter share (3 of 4 left against 9 of 10); a refused request is not told
		assertThat(left).containsExactly("two-limits 3/4", "allowed", "two-limits 2/4", "allowed", "two-limits 1/4",
				"allowed", "two-limits 0/4", "allowed", "rejected");
	}

	@Test
	void callsWithoutAClientAddressShareOneBudgetAndTheirRefusalNamesTheCall() {
		RateLimitFlow flow = flow(List.of(), AddressLists.NONE);
		List<TestCall> calls = List.of(new TestCall("call of A.a()"), new TestCall("call of B.b()"),
				new TestCall("call of C.c()"));
		assertThat(flow.apply(calls.get(0), List.of(this.byAddress)).join()).isTrue();
		assertThat(flow.apply(calls.get(1), List.of(this.byAddress)).join()).isTrue();
		assertThat(flow.apply(calls.get(2), List.of(this.byAddress)).join()).isFalse();
		assertThat(calls.get(2).rejection()).isInstanceOfSatisfying(RateLimitRejection.Limited.class, (limited) -> {
			assertThat(limited.method()).isEmpty();
			assertThat(limited.path()).isEqualTo("call of C.c()");
		});
		// a request's client address is a budget of its own
		assertThat(flow.apply(new FakeExchange(true, "10.0.0.9"), List.of(this.byAddress)).join()).isTrue();
	}

	@Test
	void theHeadersAfterAuthenticationAnnounceTheRulesAppliedBeforeIt() {
		RateLimitFlow flow = flow(List.of(this.byAddress, this.byUser), AddressLists.NONE);
		FakeExchange exchange = new FakeExchange(true, "10.0.0.3");
		exchange.keys.put("principal", "alice");
		assertThat(flow.beforeAuthentication(exchange).join()).isTrue();
		assertThat(RateLimitFields.withoutPartitionKeys(exchange.headers.getFirst("RateLimit"))).matches("\"by-ip\";r=1;t=\\d+");
		assertThat(flow.afterAuthentication(exchange).join()).isTrue();
		assertThat(RateLimitFields.withoutPartitionKeys(exchange.headers.getFirst("RateLimit")))
			.matches("\"by-ip\";r=1;t=\\d+, \"by-user\";r=1;t=\\d+");
	}

	@Test
	void aRequestsPathIsParsedOnlyInTheTurnsThatHaveRulesWithPaths() {
		RateLimitFlow flow = flow(List.of(this.byAddress), AddressLists.NONE);
		FakeExchange exchange = new FakeExchange(true, "10.0.0.4");
		assertThat(flow.beforeAuthentication(exchange).join()).isTrue();
		assertThat(exchange.pathsParsed).isEqualTo(1);
		// no rule keyed by principal, no handler rules: nothing to match after authentication
		assertThat(flow.afterAuthentication(exchange).join()).isTrue();
		assertThat(exchange.pathsParsed).isEqualTo(1);
		FakeExchange noRules = new FakeExchange(true, "10.0.0.5");
		RateLimitFlow none = flow(List.of(), AddressLists.NONE);
		assertThat(none.beforeAuthentication(noRules).join()).isTrue();
		assertThat(none.afterAuthentication(noRules).join()).isTrue();
		assertThat(noRules.pathsParsed).isZero();
	}

	@Test
	void tellsTheEntryPointsWhichTurnsCanApplyAnything() {
		assertThat(flow(List.of(this.byAddress), AddressLists.NONE).mayApplyBeforeAuthentication()).isTrue();
		assertThat(flow(List.of(this.byAddress), AddressLists.NONE).mayApplyAfterAuthentication()).isFalse();
		assertThat(flow(List.of(this.byUser), AddressLists.NONE).mayApplyBeforeAuthentication()).isFalse();
		assertThat(flow(List.of(this.byUser), AddressLists.NONE).mayApplyAfterAuthentication()).isTrue();
		AddressLists lists = new AddressLists(List.of(), List.of(CidrBlock.parse("10.9.0.0/16")));
		// a deny list screens before authentication even with no rule
		assertThat(flow(List.of(), lists).mayApplyBeforeAuthentication()).isTrue();
		assertThat(flow(List.of(), AddressLists.NONE).mayApplyBeforeAuthentication()).isFalse();
		assertThat(flow(List.of(), AddressLists.NONE).mayApplyAfterAuthentication()).isFalse();
	}

	@Test
	void aDeniedAddressIsAnsweredBeforeAnyRuleAndAnAllowedOneSkipsThemAll() {
		AddressLists lists = new AddressLists(List.of(CidrBlock.parse("10.1.0.0/16")),
				List.of(CidrBlock.parse("10.9.0.0/16")));
		RateLimitFlow flow = flow(List.of(this.byAddress, this.byUser), lists);
		FakeExchange denied = new FakeExchange(true, "10.9.0.1");
		assertThat(flow.beforeAuthentication(denied).join()).isFalse();
		assertThat(denied.rejections).singleElement().isInstanceOf(RateLimitRejection.Denied.class);
		assertThat(denied.headers.isEmpty()).isTrue();
		for (int i = 0; i < 5; i++) {
			FakeExchange allowed = new FakeExchange(false, "10.1.0.1");
			allowed.keys.put("principal", "bob");
			assertThat(flow.beforeAuthentication(allowed).join()).isTrue();
			assertThat(flow.afterAuthentication(allowed).join()).isTrue();
			assertThat(allowed.headers.isEmpty()).isTrue();
		}
	}

	@Test
	void aRuleWhoseConditionSaysNoIsSkippedAndOneWhoseConditionFailsApplies() {
		RateLimitRule conditional = this.byAddress.toBuilder().condition("onlyWrites").build();
		RateLimitFlow flow = flow(List.of(conditional), AddressLists.NONE);
		FakeExchange skipped = new FakeExchange(false, "10.0.0.4");
		skipped.condition = CompletableFuture.completedFuture(false);
		assertThat(flow.beforeAuthentication(skipped).join()).isTrue();
		assertThat(skipped.headers.isEmpty()).isTrue();
		FakeExchange failing = new FakeExchange(false, "10.0.0.4");
		failing.condition = CompletableFuture.failedFuture(new IllegalStateException("condition bean failed"));
		assertThat(flow.beforeAuthentication(failing).join()).isTrue();
		assertThat(RateLimitFields.withoutPartitionKeys(failing.headers.getFirst("RateLimit"))).matches("\"by-ip\";r=1;t=\\d+");
	}

	@Test
	void aKeyThatCannotBeReadChargesTheClientAddress() {
		RateLimitRule byParam = rule("by-param", "/api/**", "param:tenant");
		RateLimitFlow flow = flow(List.of(byParam), AddressLists.NONE);
		FakeExchange exchange = new FakeExchange(false, "10.0.0.5");
		exchange.keyFailure = new IllegalArgumentException("malformed query string");
		assertThat(flow.beforeAuthentication(exchange).join()).isTrue();
		assertThat(this.limiter.tryAcquire("by-param:ip:10.0.0.5", List.of(new RateLimit(2, Duration.ofMinutes(1))), 1)
			.get(0)
			.remaining()).isZero();
	}

	@Test
	void aNonBlockingExchangeLooksPlansUpAwayFromItsThreadAndABlockingOneAsItDecides() {
		AtomicInteger asked = new AtomicInteger();
		Function<String, RateLimitPlanResolver> plans = (name) -> (rule, key) -> {
			asked.incrementAndGet();
			return "pro";
		};
		RateLimitRule planned = this.byAddress.toBuilder()
			.plans(new PlanSource.Bean("plans"), Map.of("pro", List.of(new RateLimit(5, Duration.ofMinutes(1)))))
			.build();
		RateLimitFlow flow = engine(List.of(planned), AddressLists.NONE).planResolvers(plans, Duration.ofMinutes(1), 100)
			.build()
			.flow();
		FakeExchange reactive = new FakeExchange(false, "10.0.0.6");
		assertThat(flow.beforeAuthentication(reactive).join()).isTrue();
		assertThat(reactive.blockingTasks).isEqualTo(1);
		assertThat(RateLimitFields.withoutPartitionKeys(reactive.headers.getFirst("RateLimit"))).matches("\"by-ip\";r=4;t=\\d+");
		FakeExchange servlet = new FakeExchange(true, "10.0.0.7");
		assertThat(flow.beforeAuthentication(servlet).join()).isTrue();
		assertThat(servlet.blockingTasks).isZero();
		assertThat(asked).hasValue(2);
	}

	@Test
	void chargesOfARuleThatCountsStatusesAreHandedOverForAfterTheResponse() {
		RateLimitRule counting = this.byAddress.toBuilder()
			.countStatuses(ResponseStatuses.parse(List.of("5xx")))
			.build();
		RateLimitFlow flow = flow(List.of(counting), AddressLists.NONE);
		FakeExchange exchange = new FakeExchange(true, "10.0.0.8");
		assertThat(flow.beforeAuthentication(exchange).join()).isTrue();
		assertThat(exchange.settled).singleElement().satisfies((charge) -> assertThat(charge.counts(503)).isTrue());
	}

	private RateLimitRule rule(String name, String path, @Nullable String key) {
		return this.factory.create(name, List.of(path), List.of(),
				List.of(new LimitDefinition("", 2L, Duration.ofMinutes(1), null)), null, key, MissingKey.CLIENT_ADDRESS,
				1, null);
	}

	private RateLimitFlow flow(List<RateLimitRule> pathRules, AddressLists lists) {
		return engine(pathRules, lists).build().flow();
	}

	private RateLimitEngine.Builder engine(List<RateLimitRule> pathRules, AddressLists lists) {
		return RateLimitEngine.builder(this.factory)
			.pathRules(pathRules)
			.limiters(Map.of(Algorithm.FIXED_WINDOW, this.limiter))
			.addressLists(lists.allow(), lists.deny());
	}

	/** An entry point's request: what the flow read and wrote is kept to be asserted. */
	private static final class FakeExchange implements RateLimitRequest {

		private final boolean blocking;

		private final String clientAddress;

		private final Map<String, String> keys = new HashMap<>();

		private final Map<String, Object> attributes = new HashMap<>();

		private final HttpHeaders headers = new HttpHeaders();

		private final List<RateLimitRejection> rejections = new ArrayList<>();

		private final List<StatusCharge> settled = new ArrayList<>();

		private @Nullable RuntimeException keyFailure;

		private CompletableFuture<@Nullable Boolean> condition = CompletableFuture.completedFuture(true);

		private int blockingTasks;

		private int resumed;

		private int pathsParsed;

		FakeExchange(boolean blocking, String clientAddress) {
			this.blocking = blocking;
			this.clientAddress = clientAddress;
		}

		@Override
		public String method() {
			return "GET";
		}

		@Override
		public PathContainer path() {
			this.pathsParsed++;
			return PathContainer.parsePath("/api/orders");
		}

		@Override
		public String target() {
			return "/api/orders";
		}

		@Override
		public String clientAddress() {
			return this.clientAddress;
		}

		@Override
		public String remoteAddress() {
			return this.clientAddress;
		}

		@Override
		public @Nullable String header(String name) {
			return null;
		}

		@Override
		public CompletionStage<@Nullable String> parameter(String name) {
			return key("param:" + name);
		}

		@Override
		public CompletionStage<@Nullable String> principal() {
			return key("principal");
		}

		@Override
		public CompletionStage<@Nullable String> resolveKey(RateLimitRule rule) {
			return key(rule.key().spelling());
		}

		/** The value of a key, by its spelling; failed when {@link #keyFailure} says so. */
		private CompletionStage<@Nullable String> key(String spelling) {
			if (this.keyFailure != null) {
				return CompletableFuture.failedFuture(this.keyFailure);
			}
			return CompletableFuture.completedFuture(this.keys.get(spelling));
		}

		@Override
		public CompletionStage<@Nullable Boolean> condition(RateLimitRule rule) {
			return this.condition;
		}

		@Override
		public CompletableFuture<@Nullable HandlerMethod> handler(boolean worthLookingUp) {
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public @Nullable Object getAttribute(String name) {
			return this.attributes.get(name);
		}

		@Override
		public void setAttribute(String name, Object value) {
			this.attributes.put(name, value);
		}

		@Override
		public boolean mayBlock() {
			return this.blocking;
		}

		@Override
		public CompletableFuture<Void> blocking(Runnable task) {
			this.blockingTasks++;
			return CompletableFuture.runAsync(task);
		}

		@Override
		public <T> CompletableFuture<T> resume(CompletableFuture<T> decision) {
			this.resumed++;
			return decision;
		}

		@Override
		public void writeHeaders(HttpHeaders written) {
			this.headers.clear();
			this.headers.addAll(written);
		}

		@Override
		public CompletableFuture<Void> reject(RateLimitRejection rejection) {
			this.rejections.add(rejection);
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public void settleAfter(AfterResponse after) {
			this.settled.addAll(Settlement.of(after).charges());
		}

	}

}
