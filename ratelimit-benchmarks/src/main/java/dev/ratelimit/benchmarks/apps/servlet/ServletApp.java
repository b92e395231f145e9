package dev.ratelimit.benchmarks.apps.servlet;

import dev.ratelimit.benchmarks.apps.PlainRedisCall;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The smallest Spring MVC application a user would write: one controller with trivial endpoints, and one that
 * makes a rule's Redis call by hand ({@code /redis}). Its rules, if any, come from the command line
 * ({@code --ratelimit.rules.*}); started with and without the starter's jars on the class path by
 * {@link dev.ratelimit.benchmarks.HttpCost}.
 */
@SpringBootApplication
@RestController
public class ServletApp implements DisposableBean {

	private final PlainRedisCall redis;

	ServletApp(@Value("${spring.data.redis.url}") String url) {
		this.redis = new PlainRedisCall(url);
	}

	@GetMapping({ "/open", "/limited", "/three", "/hot" })
	String hello() {
		return "hello";
	}

	@GetMapping("/redis")
	String redis(@RequestHeader("X-Api-Key") String key) {
		this.redis.call(key);
		return "hello";
	}

	@Override
	public void destroy() {
		this.redis.close();
	}

	public static void main(String[] args) {
		SpringApplication.run(ServletApp.class, args);
	}

}
