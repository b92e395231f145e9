package dev.ratelimit.grpc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.testsupport.RedisTestServer;
import dev.ratelimit.web.WebStack;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.grpc.server.lifecycle.GrpcServerStartedEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The two ways Spring Boot serves gRPC, for the tests that hold on both: its own Netty server, in an application
 * that serves nothing else, and gRPC hosted in the servlet container (Tomcat over HTTP/2 cleartext), beside a Spring
 * MVC endpoint. Both listen on 127.0.0.1, on a port of their own choosing.
 */
enum GrpcStack {

	/** Spring Boot's Netty gRPC server, in an application that serves no web requests. */
	NETTY,

	/** gRPC in Tomcat (grpc-servlet), beside Spring MVC's {@code GET /http}. */
	SERVLET;

	/**
	 * Starts an application of this stack with a key prefix of its own and the test service.
	 * @param properties the test's properties, on top of the test Redis and the loopback address
	 * @param sources more configuration of the test's own
	 * @return the running application; the caller closes it
	 */
	GrpcApp start(Map<String, ?> properties, Class<?>... sources) {
		return start(Application.class, properties, sources);
	}

	/**
	 * Starts an application of this stack, of a given primary configuration.
	 * @param application the primary configuration
	 * @param properties the test's properties, on top of the test Redis and the loopback address
	 * @param sources more configuration of the test's own
	 * @return the running application; the caller closes it
	 */
	GrpcApp start(Class<?> application, Map<String, ?> properties, Class<?>... sources) {
		Map<String, Object> all = new LinkedHashMap<>();
		all.put("spring.data.redis.url", RedisTestServer.shared().url());
		all.put("ratelimit.key-prefix", "grpc-" + UUID.randomUUID().toString().substring(0, 8));
		all.put("ratelimit.timeout", "5s");
		if (this == NETTY) {
			all.put("spring.grpc.server.address", "127.0.0.1");
			all.put("spring.grpc.server.port", "0");
		}
		else {
			all.put("server.address", "127.0.0.1");
			all.put("server.port", "0");
			all.put("server.http2.enabled", "true");
		}
		if (application == Application.class) {
			all.put("spring.autoconfigure.exclude", String.join(",", WebStack.WITHOUT_SECURITY)
					+ ",org.springframework.boot.grpc.server.autoconfigure.security.GrpcServerSecurityAutoConfiguration"
					+ ",org.springframework.boot.grpc.server.autoconfigure.security.GrpcServerOAuth2ResourceServerAutoConfiguration");
		}
		all.putAll(properties);
		ConfigurableApplicationContext context = new SpringApplicationBuilder(application).sources(sources)
			.web((this == NETTY) ? WebApplicationType.NONE : WebApplicationType.SERVLET)
			.properties(all)
			.run();
		int port = (this == NETTY) ? context.getBean(GrpcPort.class).port.get()
				: ((WebServerApplicationContext) context).getWebServer().getPort();
		return new GrpcApp(context, port);
	}

	/** The port the Netty gRPC server listens on, once it has started. */
	static final class GrpcPort implements ApplicationListener<GrpcServerStartedEvent> {

		final AtomicInteger port = new AtomicInteger();

		@Override
		public void onApplicationEvent(GrpcServerStartedEvent event) {
			this.port.set(event.getPort());
		}

	}

	// without Spring Security, as WebStack's (see start)
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Services.class)
	static class Application {

	}

	/** The test service, what it calls, and what the tests read of the running application. */
	static class Services {

		@Bean
		GrpcPort grpcPort() {
			return new GrpcPort();
		}

		@Bean
		LimitedSender limitedSender() {
			return new LimitedSender();
		}

		@Bean
		TestGreeter testGreeter(LimitedSender sender) {
			return new TestGreeter(sender);
		}

		@Bean
		HttpEndpoint httpEndpoint() {
			return new HttpEndpoint();
		}

	}

	/** An HTTP endpoint beside the gRPC services, in the servlet application. */
	@RestController
	static class HttpEndpoint {

		@GetMapping("/http")
		String http() {
			return "ok";
		}

	}

}
