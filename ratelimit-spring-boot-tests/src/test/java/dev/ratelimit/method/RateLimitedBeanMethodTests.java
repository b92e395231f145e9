package dev.ratelimit.method;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitPlanResolver;
import dev.ratelimit.RateLimited;
import dev.ratelimit.testsupport.MutableClock;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.web.TestClockConfiguration;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link RateLimited} on the methods of ordinary beans of an application that serves no web requests, against a
 * real Redis and a clock the test moves: keys and costs from the arguments, the refusal thrown with its decision or
 * answered by a fallback, futures and publishers decided without blocking, a class's shared budget, and the rule
 * options properties have (calendar quotas, blocks, shadow, plans), each rule listed and counted like the others.
 */
class RateLimitedBeanMethodTests {

	private static ConfigurableApplicationContext context;

	private static MutableClock clock;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.properties(Map.of("spring.data.redis.url", RedisTestServer.shared().url(), "ratelimit.key-prefix",
					"methods-" + UUID.randomUUID().toString().substring(0, 8), "ratelimit.timeout", "5s",
					// a worker that shares the web application's configuration: its request rules apply to nothing
					"ratelimit.rules.api.paths", "/api/**", "ratelimit.rules.api.key", "bean:webOnlyResolver",
					"ratelimit.rules.api.limit", "10", "ratelimit.rules.api.window", "1m"))
			.run();
		clock = context.getBean(MutableClock.class);
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@Test
	void refusesTheThirdCallOfAKeyWithItsDecisionAndCallsNothing() {
		Sms sms = context.getBean(Sms.class);
		assertThat(AopUtils.isAopProxy(sms)).isTrue();
		assertThat(sms.send("+34600000001", "one")).isEqualTo("sent one");
		assertThat(sms.send("+34600000001", "two")).isEqualTo("sent two");
		RateLimitExceededException refused = catchRefusal(() -> sms.send("+34600000001", "three"));
		assertThat(refused.getRule()).isEqualTo("Sms.send");
		assertThat(refused.getLimits()).containsExactly(RateLimit.of(2, Duration.ofMinutes(1)));
		assertThat(refused.getDecision().allowed()).isFalse();
		assertThat(refused.getDecision().remaining()).isZero();
		assertThat(refused.getRetryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
		assertThat(refused.getRefusals().get(0).policy()).isEqualTo("Sms.send");
		// another phone number has a budget of its own
		assertThat(sms.send("+34600000002", "hello")).isEqualTo("sent hello");
		assertThat(sms.sent()).isEqualTo(3);
	}

	@Test
	void limitsAPackageVisibleMethodToo() {
		Sms sms = context.getBean(Sms.class);
		assertThat(sms.internal("+34600000009")).isEqualTo("internal +34600000009");
		assertThat(catchRefusal(() -> sms.internal("+34600000009")).getRule()).isEqualTo("sms-internal");
	}

	@Test
	void letsExactlyTheLimitThroughUnderConcurrentCallers() throws Exception {
		Sms sms = context.getBean(Sms.class);
		int before = sms.bulk();
		int threads = 50;
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch go = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<Boolean>> calls = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				calls.add(pool.submit(() -> {
					ready.countDown();
					go.await();
					try {
						sms.broadcast("campaign-" + before, "hello");
						return true;
					}
					catch (RateLimitExceededException ex) {
						return false;
					}
				}));
			}
			ready.await();
			go.countDown();
			int allowed = 0;
			for (Future<Boolean> call : calls) {
				allowed += call.get() ? 1 : 0;
			}
			assertThat(allowed).isEqualTo(10);
			assertThat(sms.bulk() - before).isEqualTo(10);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void callsTheFallbackWithTheRefusalInsteadOfThrowing() {
		Quotes quotes = context.getBean(Quotes.class);
		assertThat(quotes.quote("alice")).isEqualTo("fresh for alice");
		assertThat(quotes.quote("alice")).isEqualTo("cached for alice (quotes, retry in 60s)");
		assertThat(quotes.quote("bob")).isEqualTo("fresh for bob");
		assertThat(quotes.fresh()).isEqualTo(2);
	}

	@Test
	void aFallbackThatCallsTheMethodAgainGetsTheRefusalInsteadOfRecursing() {
		Retrying retrying = context.getBean(Retrying.class);
		assertThat(retrying.send("r-1")).isEqualTo("sent r-1");
		int before = retrying.fallbacks();
		// the fallback calls send again through the proxy: that nested call is refused with the exception
		RateLimitExceededException refused = catchRefusal(() -> retrying.send("r-1"));
		assertThat(refused.getRule()).isEqualTo("retrying");
		assertThat(retrying.fallbacks() - before).isEqualTo(1);
	}

	@Test
	void aFallbackThatCallsAFutureMethodAgainGetsTheRefusalInsteadOfRecursing() throws Exception {
		Retrying retrying = context.getBean(Retrying.class);
		assertThat(retrying.fetch("r-2").get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("fetched r-2");
		int before = retrying.fallbacks();
		CompletableFuture<String> again = retrying.fetch("r-2");
		assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
			.isThrownBy(() -> again.get(10, java.util.concurrent.TimeUnit.SECONDS))
			.withCauseInstanceOf(RateLimitExceededException.class);
		assertThat(retrying.fallbacks() - before).isEqualTo(1);
	}

	@Test
	void aFallbackThatSubscribesToAMonoMethodAgainGetsTheRefusalInsteadOfRecursing() {
		Retrying retrying = context.getBean(Retrying.class);
		assertThat(retrying.lookup("r-3").block(Duration.ofSeconds(10))).isEqualTo("looked up r-3");
		int before = retrying.fallbacks();
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> retrying.lookup("r-3").block(Duration.ofSeconds(10)));
		assertThat(retrying.fallbacks() - before).isEqualTo(1);
		// subscribed to later, from the fallback's publisher: the Reactor context tells the nested call
		assertThat(retrying.deferred("r-4").block(Duration.ofSeconds(10))).isEqualTo("looked up r-4");
		before = retrying.fallbacks();
		assertThatExceptionOfType(RateLimitExceededException.class)
			.isThrownBy(() -> retrying.deferred("r-4").block(Duration.ofSeconds(10)));
		assertThat(retrying.fallbacks() - before).isEqualTo(1);
	}

	@Test
	void chargesTheCostAnExpressionReadsFromTheArguments() {
		Chat chat = context.getBean(Chat.class);
		assertThat(chat.complete(new Chat.Prompt("carol", 60))).isEqualTo("answered 60");
		RateLimitExceededException refused = catchRefusal(() -> chat.complete(new Chat.Prompt("carol", 50)));
		assertThat(refused.getDecision().remaining()).isEqualTo(40);
		assertThat(chat.complete(new Chat.Prompt("carol", 40))).isEqualTo("answered 40");
		// free calls are not charged, and a cost no budget could ever pay is a mistake, not a refusal
		assertThat(chat.complete(new Chat.Prompt("carol", 0))).isEqualTo("answered 0");
		assertThatIllegalArgumentException().isThrownBy(() -> chat.complete(new Chat.Prompt("dave", 101)))
			.withMessageContaining("Chat.complete")
			.withMessageContaining("tokens")
			.withMessageContaining("101");
		assertThatIllegalArgumentException().isThrownBy(() -> chat.complete(new Chat.Prompt("dave", -1)))
			.withMessageContaining("#prompt.tokens");
	}

	@Test
	void decidesAFutureWithoutBlockingAndFailsItWhenRefused() {
		Lookups lookups = context.getBean(Lookups.class);
		int before = lookups.calls();
		assertThat(lookups.fetch("f-1").join()).isEqualTo("found f-1");
		assertThat(lookups.fetch("f-1").join()).isEqualTo("found f-1");
		CompletableFuture<String> refused = lookups.fetch("f-1");
		assertThatExceptionOfType(CompletionException.class).isThrownBy(refused::join)
			.withCauseInstanceOf(RateLimitExceededException.class);
		assertThat(lookups.calls() - before).isEqualTo(2);
		// never on Redis's I/O thread, which every other decision waits on
		assertThat(lookups.threads()).isNotEmpty().noneSatisfy((thread) -> assertThat(thread).containsIgnoringCase("lettuce"));
	}

	@Test
	void decidesEachSubscriptionOfAPublisherAsOneCall() {
		Lookups lookups = context.getBean(Lookups.class);
		int before = lookups.calls();
		Mono<String> lookup = lookups.lookup("m-1");
		// nothing is decided before a subscription
		assertThat(lookups.calls()).isEqualTo(before);
		assertThat(lookup.block()).isEqualTo("found m-1");
		assertThat(lookup.block()).isEqualTo("found m-1");
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(lookup::block);
		assertThat(lookups.calls() - before).isEqualTo(2);
		assertThat(lookups.threads()).noneSatisfy((thread) -> assertThat(thread).containsIgnoringCase("lettuce"));
		// a Flux: its fallback's publisher answers the refusal
		assertThat(lookups.stream("s-1").collectList().block()).containsExactly(1, 2, 3);
		assertThat(lookups.stream("s-1").collectList().block()).isEmpty();
	}

	@Test
	void aClassLevelLimitIsOneBudgetForEveryMethodAndCallsOutsideARequestShareIt() {
		Reports reports = context.getBean(Reports.class);
		reports.daily();
		reports.weekly();
		reports.daily();
		RateLimitExceededException refused = catchRefusal(reports::weekly);
		assertThat(refused.getRule()).isEqualTo("reports");
		// equals, hashCode and toString are not charged, overridden or not
		assertThat(reports.toString()).isEqualTo("reports");
		assertThat(reports.hashCode()).isEqualTo(reports.hashCode());
	}

	@Test
	void aCalendarQuotaResetsAtLocalMidnight() {
		Tenants tenants = context.getBean(Tenants.class);
		// the clock starts at 2026-01-01T00:00Z, 01:00 in Madrid, and only moves forward: the day there ends in 23
		// hours at most
		tenants.export("acme");
		tenants.export("acme");
		RateLimitExceededException refused = catchRefusal(() -> tenants.export("acme"));
		assertThat(refused.getRetryAfter()).isLessThanOrEqualTo(Duration.ofHours(23));
		clock.advance(Duration.ofHours(23));
		assertThat(tenants.export("acme")).isEqualTo("exported acme");
	}

	@Test
	void aBlockKeepsARefusedKeyRefusedAcrossWindows() {
		Tenants tenants = context.getBean(Tenants.class);
		tenants.login("eve");
		assertThat(catchRefusal(() -> tenants.login("eve")).getRetryAfter()).isEqualTo(Duration.ofSeconds(10));
		clock.advance(Duration.ofSeconds(4));
		assertThat(catchRefusal(() -> tenants.login("eve")).getRetryAfter()).isEqualTo(Duration.ofSeconds(6));
		clock.advance(Duration.ofSeconds(6));
		assertThat(tenants.login("eve")).isEqualTo("welcome eve");
	}

	@Test
	void aShadowLimitRefusesNothingAndCountsWhatItWouldHaveRefused() {
		Tenants tenants = context.getBean(Tenants.class);
		for (int i = 0; i < 3; i++) {
			assertThat(tenants.watched("frank")).isEqualTo("watched frank");
		}
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		assertThat(meters.get("ratelimit.decisions").tag("rule", "watched").tag("outcome", "shadow-rejected").counter()
			.count()).isEqualTo(2);
		assertThat(meters.get("ratelimit.decisions").tag("rule", "watched").tag("outcome", "allowed").counter().count())
			.isEqualTo(1);
	}

	@Test
	void aKeysPlanGivesItThePlansLimits() {
		Tenants tenants = context.getBean(Tenants.class);
		for (int i = 0; i < 3; i++) {
			tenants.tiered("pro-user");
		}
		assertThat(catchRefusal(() -> tenants.tiered("pro-user")).getLimits())
			.containsExactly(RateLimit.of(3, Duration.ofMinutes(1)));
		tenants.tiered("free-user");
		assertThat(catchRefusal(() -> tenants.tiered("free-user")).getLimits())
			.containsExactly(RateLimit.of(1, Duration.ofMinutes(1)));
	}

	@Test
	void theMethodsRulesAreListedWithTheOthers() {
		RateLimitRuleRegistry rules = context.getBean(RateLimitRuleRegistry.class);
		// checked and registered at startup, before any call
		assertThat(rules.find("Sms.send")).isNotNull();
		assertThat(rules.find("Sms.send").key().spelling()).isEqualTo("#phone");
		assertThat(rules.find("tokens")).isNotNull();
		assertThat(rules.find("reports")).isNotNull();
		assertThat(rules.find("exports").period()).isNotNull();
		// the request rules of properties are left out of an application that serves no requests
		assertThat(rules.find("api")).isNull();
	}

	private static RateLimitExceededException catchRefusal(Runnable call) {
		try {
			call.run();
		}
		catch (RateLimitExceededException ex) {
			return ex;
		}
		throw new AssertionError("the call was not refused");
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ TestClockConfiguration.class, Sms.class, Quotes.class, Chat.class, Lookups.class, Reports.class,
			Tenants.class, Retrying.class })
	static class Application {

		@Bean
		RateLimitPlanResolver tiers() {
			return (rule, key) -> key.startsWith("pro-") ? "pro" : null;
		}

	}

	static class Sms {

		private final AtomicInteger sent = new AtomicInteger();

		private final AtomicInteger bulk = new AtomicInteger();

		public int sent() {
			return this.sent.get();
		}

		public int bulk() {
			return this.bulk.get();
		}

		@RateLimited(limit = 2, window = "1m", key = "#phone")
		public String send(String phone, String text) {
			this.sent.incrementAndGet();
			return "sent " + text;
		}

		@RateLimited(name = "sms-internal", limit = 1, window = "1m", key = "#p0")
		String internal(String phone) {
			return "internal " + phone;
		}

		@RateLimited(name = "broadcast", limit = 10, window = "1m", key = "#p0")
		public void broadcast(String campaign, String text) {
			this.bulk.incrementAndGet();
		}

	}

	static class Quotes {

		private final AtomicInteger fresh = new AtomicInteger();

		public int fresh() {
			return this.fresh.get();
		}

		@RateLimited(name = "quotes", limit = 1, window = "1m", key = "#user", fallbackMethod = "cached")
		public String quote(String user) {
			this.fresh.incrementAndGet();
			return "fresh for " + user;
		}

		String cached(String user, RateLimitExceededException refused) {
			return "cached for " + user + " (" + refused.getRule() + ", retry in " + refused.getRetryAfter().toSeconds()
					+ "s)";
		}

	}

	static class Retrying {

		private final org.springframework.beans.factory.ObjectProvider<Retrying> self;

		private final AtomicInteger fallbacks = new AtomicInteger();

		Retrying(org.springframework.beans.factory.ObjectProvider<Retrying> self) {
			this.self = self;
		}

		public int fallbacks() {
			return this.fallbacks.get();
		}

		@RateLimited(name = "retrying", limit = 1, window = "1m", key = "#id", fallbackMethod = "sendAgain")
		public String send(String id) {
			return "sent " + id;
		}

		String sendAgain(String id) {
			this.fallbacks.incrementAndGet();
			return this.self.getObject().send(id);
		}

		@RateLimited(name = "retrying-future", limit = 1, window = "1m", key = "#id", fallbackMethod = "fetchAgain")
		public CompletableFuture<String> fetch(String id) {
			return CompletableFuture.completedFuture("fetched " + id);
		}

		CompletableFuture<String> fetchAgain(String id) {
			this.fallbacks.incrementAndGet();
			return this.self.getObject().fetch(id);
		}

		@RateLimited(name = "retrying-mono", limit = 1, window = "1m", key = "#id", fallbackMethod = "lookupAgain")
		public Mono<String> lookup(String id) {
			return Mono.fromSupplier(() -> "looked up " + id);
		}

		Mono<String> lookupAgain(String id) {
			this.fallbacks.incrementAndGet();
			return this.self.getObject().lookup(id);
		}

		@RateLimited(name = "retrying-deferred", limit = 1, window = "1m", key = "#id", fallbackMethod = "deferAgain")
		public Mono<String> deferred(String id) {
			return Mono.fromSupplier(() -> "looked up " + id);
		}

		Mono<String> deferAgain(String id) {
			this.fallbacks.incrementAndGet();
			return Mono.defer(() -> this.self.getObject().deferred(id));
		}

	}

	static class Chat {

		record Prompt(String user, long tokens) {
		}

		@RateLimited(name = "tokens", limit = 100, window = "1h", key = "#prompt.user", cost = "#prompt.tokens")
		public String complete(Prompt prompt) {
			return "answered " + prompt.tokens();
		}

	}

	static class Lookups {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		private final List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();

		public List<String> threads() {
			return this.threads;
		}

		@RateLimited(name = "future", limit = 2, window = "1m", key = "#id")
		public CompletableFuture<String> fetch(String id) {
			this.calls.incrementAndGet();
			this.threads.add(Thread.currentThread().getName());
			return CompletableFuture.completedFuture("found " + id);
		}

		@RateLimited(name = "mono", limit = 2, window = "1m", key = "#id")
		public Mono<String> lookup(String id) {
			return Mono.fromSupplier(() -> {
				this.calls.incrementAndGet();
				this.threads.add(Thread.currentThread().getName());
				return "found " + id;
			});
		}

		@RateLimited(name = "flux", limit = 1, window = "1m", key = "#id", fallbackMethod = "nothing")
		public Flux<Integer> stream(String id) {
			return Flux.just(1, 2, 3);
		}

		Flux<Integer> nothing(String id) {
			return Flux.empty();
		}

	}

	@RateLimited(name = "reports", limit = 3, window = "1m")
	static class Reports {

		public String daily() {
			return "daily";
		}

		public String weekly() {
			return "weekly";
		}

		@Override
		public String toString() {
			return "reports";
		}

	}

	static class Tenants {

		@RateLimited(name = "exports", limit = 2, period = "day", zone = "Europe/Madrid", key = "#tenant")
		public String export(String tenant) {
			return "exported " + tenant;
		}

		@RateLimited(name = "logins", limit = 1, window = "1s", blockFor = "10s", key = "#user")
		public String login(String user) {
			return "welcome " + user;
		}

		@RateLimited(name = "watched", limit = 1, window = "1m", shadow = "true", key = "#user")
		public String watched(String user) {
			return "watched " + user;
		}

		@RateLimited(name = "tiers", limit = 1, window = "1m", key = "#user", plan = "bean:tiers",
				plans = @RateLimited.Plan(name = "pro", limit = 3, window = "1m"))
		public String tiered(String user) {
			return "tier of " + user;
		}

	}

}
