package dev.ratelimit.benchmarks.apps.reactive;

import dev.ratelimit.benchmarks.apps.PlainRedisCall;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The smallest WebFlux application (Reactor Netty) a user would write: one controller with trivial endpoints, and
 * one that makes a rule's Redis call by hand without blocking ({@code /redis}). Its rules, if any, come from the
 * command line ({@code --ratelimit.rules.*}); started with and without the starter's jars on the class path by
 * {@link dev.ratelimit.benchmarks.HttpCost}.
 */
@SpringBootApplication
@RestController
public class ReactiveApp implements DisposableBean {

	private final PlainRedisCall redis;

	/**
	 * With {@code -Dbench.shared-loops=true}, the hand-made call's Lettuce client runs on the server's event loops,
	 * as {@code --ratelimit.lettuce.shared-event-loops=true} puts the starter's there.
	 */
	private static final boolean SHARED_LOOPS = Boolean.getBoolean("bench.shared-loops");

	ReactiveApp(@Value("${spring.data.redis.url}") String url) {
		this.redis = new PlainRedisCall(url, SHARED_LOOPS ? ServerLoops.clientResources() : null);
	}

	@GetMapping({ "/open", "/limited", "/three", "/hot" })
	String hello() {
		return "hello";
	}

	@GetMapping("/redis")
	Mono<String> redis(@RequestHeader("X-Api-Key") String key) {
		return Mono.fromFuture(() -> this.redis.callAsync(key)).thenReturn("hello");
	}

	@Override
	public void destroy() {
		this.redis.close();
	}

	public static void main(String[] args) {
		SpringApplication.run(ReactiveApp.class, args);
	}

}
