package dev.ratelimit.autoconfigure.grpc;

import dev.ratelimit.autoconfigure.webflux.RateLimitWebFluxAutoConfiguration;
import dev.ratelimit.autoconfigure.webmvc.RateLimitWebMvcAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitStack;
import dev.ratelimit.autoconfigure.RateLimitWebAutoConfiguration;
import dev.ratelimit.grpc.RateLimitServerInterceptor;
import dev.ratelimit.grpc.GrpcRateLimitSupport;
import dev.ratelimit.method.RateLimitCurrentRequest;
import dev.ratelimit.rules.flow.RateLimitFlow;
import dev.ratelimit.rules.flow.ClientAddressResolver;
import dev.ratelimit.rules.flow.RateLimitRuleRegistry;
import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.grpc.protobuf.StatusProto;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.grpc.server.GlobalServerInterceptor;
import org.springframework.grpc.server.exception.GrpcExceptionHandler;

/**
 * Applies the shared {@link RateLimitRuleRegistry rules} to the calls of gRPC services (Spring gRPC, which Spring Boot 4.1's
 * {@code spring-boot-starter-grpc-server} brings): two global {@link RateLimitServerInterceptor}s, one ahead of
 * Spring Security's gRPC authentication and one behind it, on the Netty gRPC server and on gRPC hosted in the
 * servlet container alike, in an application that has gRPC services (as Spring Boot starts a gRPC server then) (where the servlet filter leaves gRPC requests to them); a {@link GrpcExceptionHandler}
 * that ends a call refused by a {@link dev.ratelimit.RateLimited} bean method with the gRPC status of a refusal; the
 * call a bean method is made in, for its keys.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { RateLimitWebAutoConfiguration.class, RateLimitWebMvcAutoConfiguration.class,
		RateLimitWebFluxAutoConfiguration.class })
@ConditionalOnClass({ RateLimitServerInterceptor.class, ServerInterceptor.class, GlobalServerInterceptor.class,
		StatusProto.class })
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "spring.grpc.server.enabled", matchIfMissing = true)
@ConditionalOnBean({ RateLimitFlow.class, BindableService.class })
public final class RateLimitGrpcAutoConfiguration {

	/**
	 * The name of the interceptor of the first turn; the servlet filter leaves gRPC requests alone when it exists.
	 */
	public static final String BEFORE_AUTHENTICATION_INTERCEPTOR = "rateLimitGrpcBeforeAuthentication";

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitGrpcStack")
	RateLimitStack rateLimitGrpcStack(ListableBeanFactory beanFactory) {
		return RateLimitStack.calls(RateLimitStack.GRPC, () -> GrpcMethodPaths.of(beanFactory));
	}

	@Bean
	@ConditionalOnMissingBean
	GrpcRateLimitSupport rateLimitGrpcSupport(RateLimitFlow flow, RateLimitRuleRegistry rules,
			ClientAddressResolver addresses) {
		return new GrpcRateLimitSupport(flow, rules, addresses);
	}

	@Bean(BEFORE_AUTHENTICATION_INTERCEPTOR)
	@GlobalServerInterceptor
	RateLimitServerInterceptor rateLimitGrpcBeforeAuthentication(GrpcRateLimitSupport support) {
		return new RateLimitServerInterceptor(support, RateLimitServerInterceptor.Turn.BEFORE_AUTHENTICATION);
	}

	@Bean
	@GlobalServerInterceptor
	RateLimitServerInterceptor rateLimitGrpcAfterAuthentication(GrpcRateLimitSupport support) {
		return new RateLimitServerInterceptor(support, RateLimitServerInterceptor.Turn.AFTER_AUTHENTICATION);
	}

	@Bean
	GrpcExceptionHandler rateLimitGrpcExceptionHandler(GrpcRateLimitSupport support) {
		return support::refusal;
	}

	@Bean
	RateLimitCurrentRequest rateLimitGrpcCurrentRequest(GrpcRateLimitSupport support) {
		return support::currentRequest;
	}

}
