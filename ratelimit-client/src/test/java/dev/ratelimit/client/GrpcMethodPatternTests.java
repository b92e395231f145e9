package dev.ratelimit.client;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The gRPC calls a partner's {@code grpc-services} and {@code grpc-channels} cover.
 */
class GrpcMethodPatternTests {

	private static boolean covers(String pattern, String fullMethodName) {
		return GrpcMethodPattern.parse(pattern).matches(new GrpcMethod(null, fullMethodName));
	}

	@Test
	void aServiceCoversEachOfItsMethodsAndNoOtherService() {
		assertThat(covers("shop.Inventory", "shop.Inventory/GetItem")).isTrue();
		assertThat(covers("shop.Inventory", "shop.Inventory/Reserve")).isTrue();
		assertThat(covers("shop.Inventory", "shop.InventoryAdmin/GetItem")).isFalse();
		assertThat(covers("shop.Inventory", "other.shop.Inventory/GetItem")).isFalse();
	}

	@Test
	void aMethodPatternCoversTheMethodsItsStarsMatch() {
		assertThat(covers("shop.Inventory/Get*", "shop.Inventory/GetItem")).isTrue();
		assertThat(covers("shop.Inventory/Get*", "shop.Inventory/Get")).isTrue();
		assertThat(covers("shop.Inventory/Get*", "shop.Inventory/Reserve")).isFalse();
		assertThat(covers("shop.Inventory/*Item", "shop.Inventory/GetItem")).isTrue();
		assertThat(covers("shop.Inventory/GetItem", "shop.Inventory/GetItems")).isFalse();
		assertThat(covers("Greeter/SayHello", "Greeter/SayHello")).isTrue();
	}

	@Test
	void aPackageCoversItsServicesAndThoseOfThePackagesUnderIt() {
		assertThat(covers("shop.*", "shop.Inventory/GetItem")).isTrue();
		assertThat(covers("shop.*", "shop.v2.Inventory/GetItem")).isTrue();
		assertThat(covers("shop.*", "shopping.Inventory/GetItem")).isFalse();
		assertThat(covers("shop.*", "other.Inventory/GetItem")).isFalse();
	}

	@Test
	void aPatternCoversNoHttpCallAndAUrlPatternNoGrpcCall() {
		assertThat(GrpcMethodPattern.parse("shop.*").matches(PartnerUrl.of(java.net.URI.create("https://shop/x"))))
			.isFalse();
		assertThat(UrlPattern.parse("https://shop.example/**").matches(new GrpcMethod(null, "shop.Inventory/Get")))
			.isFalse();
	}

	@Test
	void aChannelCoversTheCallsOfTheChannelOfItsNameOnly() {
		GrpcChannelPattern inventory = GrpcChannelPattern.parse("inventory");
		assertThat(inventory.matches(new GrpcMethod("inventory", "shop.Inventory/Get"))).isTrue();
		assertThat(inventory.matches(new GrpcMethod("billing", "shop.Inventory/Get"))).isFalse();
		// a channel built by hand has no name
		assertThat(inventory.matches(new GrpcMethod(null, "shop.Inventory/Get"))).isFalse();
		assertThatIllegalArgumentException().isThrownBy(() -> GrpcChannelPattern.parse(" "))
			.withMessageContaining("spring.grpc.client.channel.<name>");
	}

	@Test
	void anInvalidPatternIsRefusedSayingHowToWriteIt() {
		for (String invalid : new String[] { "", "/shop.Inventory/Get", "shop.Inventory/", "shop..Inventory",
				"shop.*/Get", "shop.Inv*", "shop.Inventory/Get/Item", "https://shop.example/**", "shop.Inventory/Get()" }) {
			assertThatIllegalArgumentException().as(invalid)
				.isThrownBy(() -> GrpcMethodPattern.parse(invalid))
				.withMessageContaining("shop.Inventory");
		}
	}

}
