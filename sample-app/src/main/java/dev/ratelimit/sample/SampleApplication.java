package dev.ratelimit.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Entry point of the sample application.
 */
@SpringBootApplication
public class SampleApplication {

	/**
	 * Starts the sample application.
	 * @param args command-line arguments
	 */
	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
