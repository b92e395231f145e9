package dev.ratelimit.sample.grpc;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Runs the {@link GreeterService} on Spring Boot's gRPC server (port 9090), limited by the rules of
 * {@code application.properties}.
 */
@SpringBootApplication
public class SampleGrpcApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleGrpcApplication.class, args);
	}

}
