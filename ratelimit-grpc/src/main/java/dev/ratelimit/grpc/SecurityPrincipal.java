package dev.ratelimit.grpc;

import org.jspecify.annotations.Nullable;

import org.springframework.grpc.server.security.GrpcSecurity;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The name of a gRPC call's authenticated principal, as Spring Security's gRPC authentication (or, for gRPC hosted
 * in the servlet container, the servlet's security filters) leaves it. Loaded only with Spring Security.
 */
final class SecurityPrincipal {

	private SecurityPrincipal() {
	}

	/** Returns the name, or {@code null} when the call is anonymous. */
	static @Nullable String name() {
		SecurityContext context = GrpcExchange.GRPC_SECURITY_PRESENT ? GrpcSecurity.SECURITY_CONTEXT_KEY.get() : null;
		if (context == null) {
			context = SecurityContextHolder.getContext();
		}
		Authentication authentication = context.getAuthentication();
		if (authentication == null || !authentication.isAuthenticated()
				|| authentication instanceof AnonymousAuthenticationToken) {
			return null;
		}
		return authentication.getName();
	}

}
