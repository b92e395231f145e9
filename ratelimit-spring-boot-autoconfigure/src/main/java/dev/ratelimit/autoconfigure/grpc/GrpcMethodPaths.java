package dev.ratelimit.autoconfigure.grpc;

import java.util.LinkedHashSet;
import java.util.Set;

import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;

import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The paths of the gRPC methods the application's services implement ({@code /<full method name>}), which rules match
 * as they match request paths: served by neither Spring MVC nor WebFlux, they are mapped all the same.
 */
final class GrpcMethodPaths {

	private GrpcMethodPaths() {
	}

	/**
	 * Returns the paths of the methods of the gRPC services that are beans.
	 * @param beanFactory the application's beans
	 * @return the paths
	 */
	static Set<String> of(ListableBeanFactory beanFactory) {
		Set<String> paths = new LinkedHashSet<>();
		for (BindableService service : beanFactory.getBeansOfType(BindableService.class).values()) {
			for (ServerMethodDefinition<?, ?> method : service.bindService().getMethods()) {
				MethodDescriptor<?, ?> descriptor = method.getMethodDescriptor();
				paths.add("/" + descriptor.getFullMethodName());
			}
		}
		return paths;
	}

}
