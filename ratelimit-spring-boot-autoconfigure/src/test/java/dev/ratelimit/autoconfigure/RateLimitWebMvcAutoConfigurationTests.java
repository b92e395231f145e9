package dev.ratelimit.autoconfigure;

import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcConfigurer;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimit;
import dev.ratelimit.RateLimited;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.ForwardedHeader;
import dev.ratelimit.rules.internal.RateLimitEngine;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.RateLimitRejectionHandler;
import dev.ratelimit.web.servlet.RateLimitInterceptor;
import dev.ratelimit.web.servlet.RateLimitKeyResolver;
import dev.ratelimit.web.servlet.ServletRateLimitSupport;
import dev.ratelimit.rules.RateLimitRule;
import dev.ratelimit.rules.RuleKey;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import dev.ratelimit.rules.RateLimitRuleFactory;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.servlet.AnnotationConfigServletWebApplicationContext;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.HandlerInterceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@ExtendWith(OutputCaptureExtension.class)
class RateLimitWebMvcAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class));

	@Test
	void registersTheInterceptorWithTheConfiguredRules() {
		this.runner
			.withPropertyValues("ratelimit.rules.api.paths=/api/**,/v2/**", "ratelimit.rules.api.methods=get,POST",
					"ratelimit.rules.api.limit=100", "ratelimit.rules.api.window=1m",
					"ratelimit.rules.api.algorithm=sliding-window-log", "ratelimit.rules.api.key=header:X-Api-Key",
					"ratelimit.rules.api.cost=2", "ratelimit.rules.login.paths=/login",
					"ratelimit.rules.login.limit=5", "ratelimit.rules.login.window=30s")
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitInterceptor.class)
					.hasSingleBean(RateLimitWebMvcConfigurer.class);
				assertThat(context.getBean(RateLimitRuleRegistry.class).pathRules()).hasSize(2);
				RateLimitRule api = context.getBean(RateLimitRuleRegistry.class).pathRules().get(0);
				assertThat(api.name()).isEqualTo("api");
				assertThat(api.paths()).hasSize(2);
				assertThat(api.methods()).containsExactlyInAnyOrder("GET", "POST");
				assertThat(api.limits()).containsExactly(RateLimit.of(100, Duration.ofMinutes(1)));
				assertThat(api.algorithm()).isEqualTo(Algorithm.SLIDING_WINDOW_LOG);
				assertThat(api.key()).isEqualTo(new RuleKey.Header("X-Api-Key"));
				assertThat(api.key().spelling()).isEqualTo("header:X-Api-Key");
				assertThat(api.cost()).isEqualTo(2);
				RateLimitRule login = context.getBean(RateLimitRuleRegistry.class).pathRules().get(1);
				assertThat(login.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
				assertThat(login.key()).isEqualTo(new RuleKey.ClientAddress());
				assertThat(login.methods()).isEmpty();
			});
	}

	@Test
	void readsSeveralLimitsAndBursts() {
		this.runner
			.withPropertyValues("ratelimit.rules.search.paths=/search", "ratelimit.rules.search.algorithm=token-bucket",
					"ratelimit.rules.search.limits[0].limit=10", "ratelimit.rules.search.limits[0].window=1s",
					"ratelimit.rules.search.limits[0].burst=20", "ratelimit.rules.search.limits[1].limit=1000",
					"ratelimit.rules.search.limits[1].window=1h", "ratelimit.rules.gcra.paths=/g",
					"ratelimit.rules.gcra.algorithm=gcra", "ratelimit.rules.gcra.limit=5",
					"ratelimit.rules.gcra.window=1m", "ratelimit.rules.gcra.burst=2")
			.run((context) -> {
				List<RateLimitRule> rules = context.getBean(RateLimitRuleRegistry.class).pathRules();
				assertThat(rules.get(0).limits()).containsExactly(
						RateLimit.of(10, Duration.ofSeconds(1)).withBurst(20), RateLimit.of(1000, Duration.ofHours(1)));
				assertThat(rules.get(0).policyName(0)).isEqualTo("search-1s");
				assertThat(rules.get(0).policyName(1)).isEqualTo("search-1h");
				assertThat(rules.get(1).limits()).containsExactly(RateLimit.of(5, Duration.ofMinutes(1)).withBurst(2));
				assertThat(rules.get(1).policyName(0)).isEqualTo("gcra");
			});
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiter = '|', textBlock = """
			ratelimit.rules.bad.limits[0].window=0s   | ratelimit.rules.bad.limits[0].window | at least 1ms
			ratelimit.rules.bad.limits[1].window=1s   | ratelimit.rules.bad.limits[1].window | a window of its own
			ratelimit.rules.bad.limits[1].limit=      | ratelimit.rules.bad.limits[1].limit  | set it to the permits per window
			ratelimit.rules.bad.limits[0].burst=3     | ratelimit.rules.bad.limits[0].burst  | burst applies to the token bucket and GCRA only
			ratelimit.rules.bad.limit=5               | ratelimit.rules.bad.limits           | give either limit, window and burst, or limits[*]
			ratelimit.rules.bad.cost=6                | ratelimit.rules.bad.cost             | must not exceed the limit of 5
			""")
	void refusesToStartWithBadLimits(String property, String named, String reason) {
		this.runner
			.withPropertyValues("ratelimit.rules.bad.paths=/bad", "ratelimit.rules.bad.limits[0].limit=5",
					"ratelimit.rules.bad.limits[0].window=1s", "ratelimit.rules.bad.limits[1].limit=50",
					"ratelimit.rules.bad.limits[1].window=1m", property)
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property " + named)
				.hasMessageContaining(reason));
	}

	@Test
	void refusesACostAboveTheBurstOfATokenBucket() {
		this.runner
			.withPropertyValues("ratelimit.rules.b.paths=/b", "ratelimit.rules.b.algorithm=token-bucket",
					"ratelimit.rules.b.limit=100", "ratelimit.rules.b.window=1m", "ratelimit.rules.b.burst=4",
					"ratelimit.rules.b.cost=5")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property ratelimit.rules.b.cost with value '5' is invalid")
				.hasMessageContaining("must not exceed the burst of 4"));
	}

	@Test
	void refusesAnIpv6PrefixLengthOutsideOneTo128() {
		this.runner.withPropertyValues("ratelimit.ipv6-prefix-length=129")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property ratelimit.ipv6-prefix-length with value '129' is invalid")
				.hasMessageContaining("use 1 to 128"));
	}

	@Test
	void refusesAPlanHeaderWithoutTrustedProxies() {
		this.runner
			.withPropertyValues("ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.key=header:X-Api-Key",
					"ratelimit.rules.api.limit=1", "ratelimit.rules.api.window=1m", "ratelimit.rules.api.plan=header:X-Plan",
					"ratelimit.rules.api.plans.gold.limit=3", "ratelimit.rules.api.plans.gold.window=1m")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property ratelimit.rules.api.plan with value 'header:X-Plan' is invalid")
				.hasMessageContaining("set ratelimit.trusted-proxies")
				.hasMessageContaining("plan=bean:<name>"));
	}

	@Test
	void refusesASlidingLogLimitAboveItsMaximumPointingToTheCounter() {
		this.runner
			.withPropertyValues("ratelimit.rules.log.paths=/log", "ratelimit.rules.log.algorithm=sliding-window-log",
					"ratelimit.rules.log.limit=2000000", "ratelimit.rules.log.window=1h")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property ratelimit.rules.log.limit with value '2000000' is invalid")
				.hasMessageContaining("must not exceed 10000 for the sliding window log")
				.hasMessageContaining("sliding-window-counter"));
	}

	@Test
	void refusesAnAnnotationsSlidingLogLimitAboveItsMaximum() {
		this.runner
			.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
					WebMvcAutoConfiguration.class))
			.withUserConfiguration(HugeLogController.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("HugeLogController.hello()")
					.contains("must not exceed 10000 for the sliding window log");
				assertThat(analysis.getAction()).contains("sliding-window-counter");
			});
	}

	@Test
	void appliesTheDefaultAlgorithmToRulesThatNameNone() {
		this.runner
			.withPropertyValues("ratelimit.default-algorithm=sliding-window-log", "ratelimit.rules.a.paths=/a",
					"ratelimit.rules.a.limit=1", "ratelimit.rules.a.window=1s")
			.run((context) -> assertThat(context.getBean(RateLimitRuleRegistry.class).pathRules().get(0).algorithm())
				.isEqualTo(Algorithm.SLIDING_WINDOW_LOG));
	}

	@Test
	void registersNothingWhenDisabled() {
		this.runner.withPropertyValues("ratelimit.enabled=false", "ratelimit.rules.a.paths=/a")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RateLimitInterceptor.class)
				.doesNotHaveBean(RateLimitWebMvcConfigurer.class));
	}

	@Test
	void backsOffInANonWebApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitInterceptor.class));
	}

	@Test
	void backsOffInAReactiveApplication() {
		new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitInterceptor.class));
	}

	@Test
	void backsOffWithoutSpringMvcOnTheClassPath() {
		this.runner.withClassLoader(new FilteredClassLoader(HandlerInterceptor.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitInterceptor.class));
	}

	@Test
	void letsTheApplicationsOwnBeansWin() {
		ClientAddressResolver resolver = RateLimitEngine.trustedProxies(List.of(), ForwardedHeader.X_FORWARDED_FOR, 128);
		this.runner.withBean("myResolver", ClientAddressResolver.class, () -> resolver)
			.run((context) -> assertThat(context.getBean(ClientAddressResolver.class)).isSameAs(resolver));
		RateLimitRuleFactory factory = new RateLimitRuleFactory(Algorithm.FIXED_WINDOW,
				new RateLimitWebAutoConfiguration.BeanKeyResolvers(new DefaultListableBeanFactory(),
						RateLimitKeyResolver.class),
				false);
		RateLimitEngine engine = RateLimitEngine.builder(factory).addresses(resolver).build();
		ServletRateLimitSupport support = new ServletRateLimitSupport(engine.flow(), resolver, (name) -> null,
				(name) -> null, RateLimitEngine.problemDetails(), List::of);
		RateLimitInterceptor interceptor = new RateLimitInterceptor(support);
		this.runner.withBean("myInterceptor", RateLimitInterceptor.class, () -> interceptor).run((context) -> {
			assertThat(context).hasSingleBean(RateLimitInterceptor.class);
			assertThat(context.getBean(RateLimitInterceptor.class)).isSameAs(interceptor);
		});
		RateLimitRuleRegistry rules = engine.rules();
		this.runner.withBean("myRules", RateLimitRuleRegistry.class, () -> rules)
			.run((context) -> assertThat(context.getBean(RateLimitRuleRegistry.class)).isSameAs(rules));
		RateLimitFlow flow = engine.flow();
		this.runner.withBean("myFlow", RateLimitFlow.class, () -> flow)
			.run((context) -> assertThat(context.getBean(RateLimitFlow.class)).isSameAs(flow));
		RateLimitRejectionHandler rejections = (rejection) -> ResponseEntity.status(429).body("slow down");
		this.runner.withBean("myRejections", RateLimitRejectionHandler.class, () -> rejections)
			.run((context) -> assertThat(context.getBean(RateLimitRejectionHandler.class)).isSameAs(rejections));
	}

	@Test
	void readsTheForwardedHeaderTheProxiesWrite() {
		this.runner.withPropertyValues("ratelimit.trusted-proxies=10.0.0.0/8", "ratelimit.forwarded-header=forwarded")
			.run((context) -> {
				MockHttpServletRequest request = new MockHttpServletRequest();
				request.setRemoteAddr("10.0.0.1");
				request.addHeader("X-Forwarded-For", "6.6.6.6");
				request.addHeader("Forwarded", "for=203.0.113.7");
				assertThat(context.getBean(ClientAddressResolver.class)
					.resolve(request.getRemoteAddr(), (name) -> java.util.Collections.list(request.getHeaders(name))))
					.isEqualTo("203.0.113.7");
			});
	}

	@Test
	void refusesToStartWithAnUnknownProperty() {
		this.runner.withPropertyValues("ratelimit.rules.api.paths=/api", "ratelimit.rules.api.limt=5",
				"ratelimit.rules.api.window=1m")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("ratelimit.rules.api.limt"));
		this.runner.withPropertyValues("ratelimit.rules.orders.v2.paths=/v2/orders",
				"ratelimit.rules.orders.v2.limit=5", "ratelimit.rules.orders.v2.window=1m")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("ratelimit.rules.orders.v2.paths"));
	}

	@Test
	void refusesToStartWhenTwoRulesShareAName() {
		this.runner
			.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
					WebMvcAutoConfiguration.class))
			.withUserConfiguration(ShopA.Orders.class, ShopB.Orders.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("Orders.list").contains("ShopA$Orders.list()")
					.contains("ShopB$Orders.list()");
				assertThat(analysis.getAction()).contains("give each its own name");
			});
	}

	@Test
	void refusesToStartWhenOverloadsWouldShareADefaultName() {
		this.runner.withPropertyValues("ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=1",
				"ratelimit.rules.api.window=1m")
			.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class))
			.withUserConfiguration(Overloads.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("Overloads.report")
					.contains("Overloads.report()")
					.contains("Overloads.report(int)");
				assertThat(analysis.getAction()).contains("give each its own name");
			});
	}

	@Test
	void resolvesABeanKeyToTheApplicationsResolver() {
		this.runner.withUserConfiguration(TenantResolverConfiguration.class)
			.withPropertyValues("ratelimit.rules.t.paths=/t", "ratelimit.rules.t.limit=1",
					"ratelimit.rules.t.window=1s", "ratelimit.rules.t.key=bean:tenantResolver")
			.run((context) -> assertThat(keyResolver(context.getBean(ServletRateLimitSupport.class), "tenantResolver"))
				.isSameAs(context.getBean("tenantResolver")));
		// an alias names the same bean, at startup and per request
		this.runner.withUserConfiguration(TenantResolverConfiguration.class)
			.withInitializer((context) -> context.getBeanFactory().registerAlias("tenantResolver", "tenant"))
			.withPropertyValues("ratelimit.rules.t.paths=/t", "ratelimit.rules.t.limit=1",
					"ratelimit.rules.t.window=1s", "ratelimit.rules.t.key=bean:tenant")
			.run((context) -> assertThat(keyResolver(context.getBean(ServletRateLimitSupport.class), "tenant"))
				.isSameAs(context.getBean("tenantResolver")));
	}

	@SuppressWarnings("unchecked")
	private static RateLimitKeyResolver keyResolver(ServletRateLimitSupport support, String name) {
		return ((java.util.function.Function<String, RateLimitKeyResolver>) org.springframework.test.util.ReflectionTestUtils
			.getField(support, "keyResolvers")).apply(name);
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = '|', textBlock = """
			ratelimit.rules.bad.limit        | 0                  | limit must be at least 1
			ratelimit.rules.bad.limit        | -5                 | limit must be at least 1
			ratelimit.rules.bad.window       | 0s                 | at least 1ms
			ratelimit.rules.bad.window       | -1s                | at least 1ms
			ratelimit.rules.bad.window       | 36501d             | at most 36500d
			ratelimit.rules.bad.cost         | 0                  | must be at least 1
			ratelimit.rules.bad.cost         | 11                 | must not exceed the limit of 10
			ratelimit.rules.bad.key          | cookie:session     | use ip, header:<Name>, param:<name>, principal or bean:<name>
			ratelimit.rules.bad.key          | header:            | name the header after the ':'
			ratelimit.rules.bad.key          | bean:nobody        | there is no bean named 'nobody'
			ratelimit.rules.bad.methods      | FETCH              | use HTTP methods such as GET
			ratelimit.rules.bad.paths        | /api/**/x/**       | use Spring path patterns
			ratelimit.rules.bad.paths        | api/greeting       | never matches any request; write /api/greeting
			ratelimit.rules.bad.exclude-paths | api/health        | never matches any request; write /api/health
			ratelimit.trusted-proxies[0]     | 10.0.0.0/33        | invalid prefix length
			ratelimit.trusted-proxies[0]     | proxy.example.com  | not an IP address or CIDR block
			ratelimit.allow.addresses[0]     | 10.0.0.0/33        | invalid prefix length
			ratelimit.rules.bad.plan         | bean:nobody        | there is no bean named 'nobody' implementing dev.ratelimit.RateLimitPlanResolver
			ratelimit.rules.bad.plan         | cookie:plan        | bean:<name> (a RateLimitPlanResolver bean) or header:<Name>
			ratelimit.plan-cache.ttl         | 0s                 | ttl must be positive
			ratelimit.rules.bad.condition    | bean:nobody        | there is no bean named 'nobody' implementing dev.ratelimit.web.servlet.RateLimitCondition
			ratelimit.rules.bad.condition    | always             | name a condition bean as bean:<name>
			ratelimit.rules.bad.count-statuses | 4x4              | use codes (401), classes (4xx) or ranges (500-599)
			ratelimit.rules.bad.count-statuses | 599-500          | ends before it starts
			ratelimit.rules.bad.exclude-paths | /api/**/x/**      | use Spring path patterns
			ratelimit.rules.bad.block-for    | 0s                 | must be from 1ms to 36500d
			ratelimit.rules.bad.block-multiplier | 2.5            | it grows blocks, and the rule has none; set block-for too
			ratelimit.rules.bad.block-max    | 1h                 | it caps blocks, and the rule has none; set block-for too
			ratelimit.plan-cache.max-keys    | 0                  | maxKeys must be at least 1
			ratelimit.deny.addresses[0]      | intranet           | not an IP address or CIDR block
			""")
	void refusesToStartWithABadPropertyAndNamesIt(String property, String value, String reason) {
		this.runner
			.withPropertyValues("ratelimit.rules.bad.paths=/bad", "ratelimit.rules.bad.limit=10",
					"ratelimit.rules.bad.window=1m", property + "=" + value)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("Property " + property + " with value '" + value + "' is invalid")
					.hasMessageContaining(reason);
			});
	}

	@Test
	void refusesToStartWithABlockLongerThanItsMaxOrAMultiplierBelowOne() {
		this.runner
			.withPropertyValues("ratelimit.rules.bad.paths=/bad", "ratelimit.rules.bad.limit=10",
					"ratelimit.rules.bad.window=1m", "ratelimit.rules.bad.block-for=1h", "ratelimit.rules.bad.block-max=10m")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property ratelimit.rules.bad.block-max with value '10m' is invalid")
				.hasMessageContaining("must be at least blockFor (1h)"));
		this.runner
			.withPropertyValues("ratelimit.rules.bad.paths=/bad", "ratelimit.rules.bad.limit=10",
					"ratelimit.rules.bad.window=1m", "ratelimit.rules.bad.block-for=1h",
					"ratelimit.rules.bad.block-multiplier=0.5")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Property ratelimit.rules.bad.block-multiplier with value '0.5' is invalid")
				.hasMessageContaining("at least 1"));
		this.runner
			.withPropertyValues("ratelimit.rules.bad.paths=/bad", "ratelimit.rules.bad.limit=10",
					"ratelimit.rules.bad.period=day", "ratelimit.rules.bad.block-for=1h")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("ratelimit.rules.bad.block-for")
				.hasMessageContaining("a calendar quota refuses a spent budget until its period ends"));
	}

	@Test
	void explainsAPathThatCanNeverMatchInTheStartupFailure(CapturedOutput output) {
		// a servlet application without a server: the rules of properties are built in a web application only
		SpringApplicationBuilder application = new SpringApplicationBuilder(PathlessApplication.class)
			.web(WebApplicationType.SERVLET)
			.contextFactory((type) -> new AnnotationConfigServletWebApplicationContext())
			.properties("spring.main.banner-mode=off", "ratelimit.rules.api.paths=api/greeting",
					"ratelimit.rules.api.limit=5", "ratelimit.rules.api.window=1m");
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(application::run);
		// the failure analysis Boot prints: the property, its value, and the fix
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("'ratelimit.rules.api.paths'")
			.contains("'api/greeting'")
			.contains("a path pattern starts with '/'")
			.contains("write /api/greeting");
	}

	@Test
	void refusesToStartWithARuleWithoutPaths() {
		this.runner.withPropertyValues("ratelimit.rules.bad.limit=10", "ratelimit.rules.bad.window=1m")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("ratelimit.rules.bad.paths")
				.hasMessageContaining("at least one path pattern"));
	}

	@Test
	void refusesToStartWithARuleWithoutLimitOrWindow() {
		this.runner.withPropertyValues("ratelimit.rules.bad.paths=/x", "ratelimit.rules.bad.window=1m")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("ratelimit.rules.bad.limit")
				.hasMessageContaining("set it to the permits per window"));
		this.runner.withPropertyValues("ratelimit.rules.bad.paths=/x", "ratelimit.rules.bad.limit=1")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("ratelimit.rules.bad.window")
				.hasMessageContaining("set it to the window length"));
	}

	@Test
	void refusesToStartWithAnUnknownAlgorithmAndListsTheKnownOnes() {
		this.runner
			.withPropertyValues("ratelimit.rules.bad.paths=/x", "ratelimit.rules.bad.limit=1",
					"ratelimit.rules.bad.window=1m", "ratelimit.rules.bad.algorithm=leaky-bucket")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure())
					.hasStackTraceContaining("Failed to bind properties under 'ratelimit.rules.bad.algorithm'")
					.hasStackTraceContaining("leaky-bucket");
			});
	}

	@Test
	void refusesToStartWithRulesButNoRedis() {
		new WebApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitWebAutoConfiguration.class,
							RateLimitWebMvcAutoConfiguration.class))
			.withPropertyValues("ratelimit.rules.api.paths=/api/**", "ratelimit.rules.api.limit=1",
					"ratelimit.rules.api.window=1m")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("ratelimit.rules.api.algorithm")
				.hasMessageContaining("with value 'fixed-window'")
				.hasMessageContaining("need a RedisConnectionFactory")
				.hasMessageContaining("spring-boot-starter-data-redis"));
	}

	@Test
	void refusesToStartWithABadAnnotationAndExplainsWhere() {
		this.runner
			.withConfiguration(AutoConfigurations.of(DispatcherServletAutoConfiguration.class,
					WebMvcAutoConfiguration.class))
			.withUserConfiguration(BadlyAnnotatedController.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidRateLimitRuleFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("BadlyAnnotatedController.hello()")
					.contains("window '0s'");
				assertThat(analysis.getAction()).contains("at least 1ms");
			});
	}

	@RestController
	static class Overloads {

		@GetMapping("/report")
		@RateLimited(limit = 100, window = "1m")
		String report() {
			return "all";
		}

		@GetMapping("/report/{page}")
		@RateLimited(limit = 5, window = "1m")
		String report(@org.springframework.web.bind.annotation.PathVariable int page) {
			return "page " + page;
		}

	}

	static class ShopA {

		@RestController
		static class Orders {

			@GetMapping("/a/orders")
			@RateLimited(limit = 100, window = "1m")
			String list() {
				return "a";
			}

		}

	}

	static class ShopB {

		@RestController
		static class Orders {

			@GetMapping("/b/orders")
			@RateLimited(limit = 5, window = "1m")
			String list() {
				return "b";
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TenantResolverConfiguration {

		@Bean
		RateLimitKeyResolver tenantResolver() {
			return (request) -> request.getHeader("X-Tenant");
		}

	}

	@RestController
	static class HugeLogController {

		@GetMapping("/hello")
		@RateLimited(limit = 2_000_000, window = "1h", algorithm = "sliding-window-log")
		String hello() {
			return "hello";
		}

	}

	@RestController
	static class BadlyAnnotatedController {

		@GetMapping("/hello")
		@RateLimited(limit = 5, window = "0s")
		String hello() {
			return "hello";
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
			RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class })
	static class PathlessApplication {

	}

}
