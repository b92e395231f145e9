package dev.ratelimit.method;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimited;
import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.rules.InvalidRateLimitRuleException;
import dev.ratelimit.rules.MethodLimits;
import dev.ratelimit.rules.RateLimitRuleFactory;
import dev.ratelimit.rules.KeyResolvers;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link RateLimited} bean method that cannot work stops the application at startup, with a message that names
 * the method, the attribute and the fix: a SpEL expression that does not parse or reads no parameter, an unknown
 * fallback or one of the wrong signature, SpEL on a web handler, and every option read as its property is.
 */
class RateLimitedBeanMethodStartupTests {

	private static final RateLimitRuleFactory factory = new RateLimitRuleFactory(Algorithm.FIXED_WINDOW, new KeyResolvers() {

		@Override
		public boolean exists(String name) {
			return false;
		}

		@Override
		public String type() {
			return "none";
		}

	}, false, "plans"::equals);

	@Test
	void aKeyThatReadsNoParameterStopsTheApplication() {
		assertThatThrownBy(() -> start(MisspeltKey.class)).satisfies((ex) -> assertThat(messages(ex))
			.contains("MisspeltKey.send")
			.contains("key '#usrId' is invalid")
			.contains("#usrId is not a parameter of the method; it has #userId (#p0), #text (#p1)"));
	}

	@Test
	void aKeyThatDoesNotParseStopsTheApplication() {
		assertThatThrownBy(() -> start(BrokenKey.class)).satisfies((ex) -> assertThat(messages(ex))
			.contains("BrokenKey.send")
			.contains("not a SpEL expression"));
	}

	@Test
	void anUnknownFallbackStopsTheApplication() {
		assertThatThrownBy(() -> start(UnknownFallback.class)).satisfies((ex) -> assertThat(messages(ex))
			.contains("UnknownFallback.send")
			.contains("fallbackMethod 'nowhere' is invalid")
			.contains("has no method of that name")
			.contains("declare String nowhere(String, [RateLimitExceededException]) on the bean"));
	}

	@Test
	void aFallbackOfTheWrongSignatureStopsTheApplication() {
		assertThatThrownBy(() -> start(WrongFallback.class)).satisfies((ex) -> assertThat(messages(ex))
			.contains("WrongFallback.send")
			.contains("found Integer later(String); String later(String, Long)"));
	}

	@Test
	void aPrivateMethodWhichNoProxyReachesStopsTheApplication() {
		assertThatThrownBy(() -> start(PrivateMethod.class)).satisfies((ex) -> assertThat(messages(ex))
			.contains("PrivateMethod.send")
			.contains("a private method is called past the proxy"));
	}

	@Test
	void aReturnTypeTheLimitCannotStandInForStopsTheApplication() {
		assertThatThrownBy(() -> start(FutureOfItsOwn.class)).satisfies((ex) -> assertThat(messages(ex))
			.contains("FutureOfItsOwn.send")
			.contains("return type 'java.util.concurrent.Future' is invalid"));
	}

	@Test
	void aCostExpressionOnALimitOfCallsInFlightOnlyStopsTheApplication() {
		assertThatThrownBy(() -> start(CostWithoutLimits.class)).satisfies((ex) -> assertThat(messages(ex))
			.contains("CostWithoutLimits.export")
			.contains("cost '#weight' is invalid")
			.contains("remove cost, or set limit and window"));
	}

	@Test
	void aSoftLimitThatWouldRefuseACallWithoutItsKeyStopsTheApplication() {
		assertThatThrownBy(() -> start(SoftRejecting.class)).satisfies((ex) -> assertThat(messages(ex))
			.contains("SoftRejecting.send")
			.contains("missingKey 'reject' is invalid")
			.contains("a soft rule (enforce false) never refuses")
			.contains("use client-address or skip, or enforce the rule"));
	}

	@Test
	void anApplicationOfGoodMethodsStarts() {
		try (ConfigurableApplicationContext context = start(Good.class)) {
			assertThat(context.getBean(Good.class).send("x")).isEqualTo("sent x");
		}
	}

	@Test
	void aPrefetchingMethodRunsExactlyItsLimit() {
		try (ConfigurableApplicationContext context = start(Prefetching.class)) {
			Prefetching bean = context.getBean(Prefetching.class);
			// a key of this run's own: the budget lives an hour in the shared Redis
			String key = java.util.UUID.randomUUID().toString();
			for (int i = 0; i < 5; i++) {
				assertThat(bean.send(key)).isEqualTo("sent " + key);
			}
			assertThatExceptionOfType(dev.ratelimit.RateLimitExceededException.class).isThrownBy(() -> bean.send(key));
		}
	}

	@Test
	void aHandlerCannotUseWhatOnlyBeanMethodsHave() throws Exception {
		Method handler = Handlers.class.getDeclaredMethod("byArgument", String.class);
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> factory.forHandler(handler, Handlers.class))
			.withMessageContaining("key '#id' is invalid")
			.withMessageContaining("a web handler's limits are decided before its arguments are read")
			.withMessageContaining("Handlers.byArgument(String)");
		Method fallback = Handlers.class.getDeclaredMethod("withFallback");
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> factory.forHandler(fallback, Handlers.class))
			.withMessageContaining("fallbackMethod 'other' is invalid");
	}

	@Test
	void readsEveryOptionAsItsPropertyIs() throws Exception {
		MethodLimits limits = factory.forBeanMethod(Options.class.getDeclaredMethod("all", String.class), Options.class);
		var rule = limits.rules().get(0);
		assertThat(rule.name()).isEqualTo("all");
		assertThat(rule.block()).isNotNull();
		assertThat(rule.block().blockFor()).hasMinutes(10);
		assertThat(rule.block().multiplier()).isEqualTo(2.0);
		assertThat(rule.block().max()).hasHours(2);
		assertThat(rule.shadow()).isTrue();
		assertThat(rule.allowKeys()).isEqualTo(Set.of("internal"));
		assertThat(rule.plans()).containsOnlyKeys("pro");
		assertThat(rule.plan().spelling()).isEqualTo("bean:plans");
		assertThat(rule.missingKey().name()).isEqualTo("SKIP");
		assertThat(rule.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
		assertThat(limits.costOf(rule)).isEqualTo("#weight.length()");
		assertThat(limits.fallbackMethod()).isNull();
		var quota = factory.forBeanMethod(Options.class.getDeclaredMethod("quota", String.class), Options.class)
			.rules()
			.get(0);
		assertThat(quota.period().name()).isEqualTo("MONTH");
		assertThat(quota.zone().getId()).isEqualTo("Europe/Madrid");
		assertThat(quota.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
	}

	@Test
	void aBadOptionNamesItsAttribute() {
		Map<String, String> expected = Map.of("badPeriod", "period 'fortnight' is invalid: use day, week or month",
				"badZone", "zone 'Mars/Olympus' is invalid", "badShadow", "shadow 'maybe' is invalid", "badBlock",
				"blockFor 'forever' is invalid", "zoneWithoutPeriod", "zone 'UTC' is invalid", "badMultiplier",
				"blockMultiplier '2.0' is invalid", "badCost", "cost 'two' is invalid", "badMissingKey",
				"missingKey 'ignore' is invalid", "unknownPlanResolver", "plan 'bean:nobody' is invalid", "badPrefetch",
				"prefetch '11' is invalid: an instance may take at most the rule's smallest limit at once, 10");
		expected.forEach((name, message) -> {
			Method method = ReflectionUtils.findMethod(Bad.class, name);
			assertThatExceptionOfType(InvalidRateLimitRuleException.class)
				.as(name)
				.isThrownBy(() -> factory.forBeanMethod(method, Bad.class))
				.withMessageContaining(message)
				.withMessageContaining("Bad." + name);
		});
	}

	private static ConfigurableApplicationContext start(Class<?> bean) {
		return new SpringApplicationBuilder(Application.class, bean).web(WebApplicationType.NONE)
			.properties(Map.of("spring.data.redis.url", RedisTestServer.shared().url(), "spring.main.banner-mode", "off"))
			.run();
	}

	private static String messages(Throwable ex) {
		StringBuilder all = new StringBuilder();
		for (Throwable each = ex; each != null; each = each.getCause()) {
			all.append(each.getMessage()).append('\n');
		}
		return all.toString();
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

	static class Prefetching {

		@RateLimited(name = "prefetching-send", limit = 5, window = "1h", prefetch = 2, key = "#text")
		public String send(String text) {
			return "sent " + text;
		}

	}

	static class CostWithoutLimits {

		@RateLimited(concurrency = 2, key = "#tenant", cost = "#weight")
		public String export(String tenant, long weight) {
			return "exported";
		}

	}

	static class SoftRejecting {

		@RateLimited(limit = 2, window = "1m", key = "header:X-Tenant", missingKey = "reject", enforce = "false")
		public String send(String text) {
			return "sent " + text;
		}

	}

	static class MisspeltKey {

		@RateLimited(limit = 1, window = "1m", key = "#usrId")
		public String send(String userId, String text) {
			return text;
		}

	}

	static class BrokenKey {

		@RateLimited(limit = 1, window = "1m", key = "#userId +")
		public String send(String userId) {
			return userId;
		}

	}

	static class UnknownFallback {

		@RateLimited(limit = 1, window = "1m", key = "#userId", fallbackMethod = "nowhere")
		public String send(String userId) {
			return userId;
		}

	}

	static class WrongFallback {

		@RateLimited(limit = 1, window = "1m", key = "#userId", fallbackMethod = "later")
		public String send(String userId) {
			return userId;
		}

		Integer later(String userId) {
			return 0;
		}

		String later(String userId, Long other) {
			return userId;
		}

	}

	static class PrivateMethod {

		public String call() {
			return send("x");
		}

		@RateLimited(limit = 1, window = "1m")
		private String send(String text) {
			return text;
		}

	}

	static class FutureOfItsOwn {

		@RateLimited(limit = 1, window = "1m")
		public java.util.concurrent.Future<String> send(String text) {
			return java.util.concurrent.CompletableFuture.completedFuture(text);
		}

	}

	static class Good {

		@RateLimited(limit = 5, window = "1m", key = "#p0", fallbackMethod = "later")
		public String send(String userId) {
			return "sent " + userId;
		}

		String later(String userId, RuntimeException refused) {
			return "later";
		}

	}

	static class Handlers {

		@RateLimited(limit = 1, window = "1m", key = "#id")
		String byArgument(String id) {
			return id;
		}

		@RateLimited(limit = 1, window = "1m", fallbackMethod = "other")
		String withFallback() {
			return "";
		}

	}

	static class Options {

		@RateLimited(name = "all", limit = 10, window = "1m", algorithm = "token-bucket", key = "#p0",
				cost = "#weight.length()", missingKey = "skip", allowKeys = "internal", shadow = "true",
				blockFor = "10m", blockMultiplier = 2, blockMax = "2h", plan = "bean:plans",
				plans = @RateLimited.Plan(name = "pro", limit = 100, window = "1m"))
		String all(String weight) {
			return weight;
		}

		@RateLimited(name = "quota", limit = 1000, period = "month", zone = "Europe/Madrid", key = "#p0")
		String quota(String tenant) {
			return tenant;
		}

	}

	static class Bad {

		@RateLimited(limit = 10, window = "1m", prefetch = 11)
		void badPrefetch() {
		}

		@RateLimited(limit = 1, period = "fortnight")
		void badPeriod() {
		}

		@RateLimited(limit = 1, period = "day", zone = "Mars/Olympus")
		void badZone() {
		}

		@RateLimited(limit = 1, window = "1m", shadow = "maybe")
		void badShadow() {
		}

		@RateLimited(limit = 1, window = "1m", blockFor = "forever")
		void badBlock() {
		}

		@RateLimited(limit = 1, window = "1m", zone = "UTC")
		void zoneWithoutPeriod() {
		}

		@RateLimited(limit = 1, window = "1m", blockMultiplier = 2)
		void badMultiplier() {
		}

		@RateLimited(limit = 1, window = "1m", cost = "two")
		void badCost() {
		}

		@RateLimited(limit = 1, window = "1m", missingKey = "ignore")
		void badMissingKey() {
		}

		@RateLimited(limit = 1, window = "1m", plan = "bean:nobody", plans = @RateLimited.Plan(name = "pro", limit = 2,
				window = "1m"))
		void unknownPlanResolver() {
		}

	}

}
