package dev.ratelimit.client;

import java.util.regex.Pattern;

/**
 * The gRPC calls of a service or of some of its methods: a service's full name ({@code shop.Inventory}), every
 * service of a package and the packages under it ({@code shop.*}), or a service's methods, {@code *} standing for any
 * characters of a method's name ({@code shop.Inventory/Get*}).
 */
final class GrpcMethodPattern implements CallPattern {

	private static final Pattern SERVICE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*");

	private static final Pattern METHOD = Pattern.compile("[A-Za-z0-9_*]+");

	private final String spelling;

	/** The service's full name, or the package's followed by {@code .} for {@code package.*}. */
	private final String service;

	private final boolean packageOf;

	/** The method's name as a regular expression, {@code null} for every method. */
	private final Pattern method;

	private GrpcMethodPattern(String spelling, String service, boolean packageOf, Pattern method) {
		this.spelling = spelling;
		this.service = service;
		this.packageOf = packageOf;
		this.method = method;
	}

	/**
	 * Parses a pattern.
	 * @param spelling the pattern
	 * @return the pattern
	 * @throws IllegalArgumentException saying what is wrong and how to write it
	 */
	static GrpcMethodPattern parse(String spelling) {
		String text = spelling.strip();
		int slash = text.indexOf('/');
		String service = (slash < 0) ? text : text.substring(0, slash);
		String method = (slash < 0) ? "*" : text.substring(slash + 1);
		boolean packageOf = service.endsWith(".*");
		String name = packageOf ? service.substring(0, service.length() - 2) : service;
		if (!SERVICE.matcher(name).matches()) {
			throw new IllegalArgumentException("give a service's full name (shop.Inventory), every service of a "
					+ "package (shop.*), or a service's methods (shop.Inventory/Get*), but was '" + spelling + "'");
		}
		if (!METHOD.matcher(method).matches() || (packageOf && !method.equals("*"))) {
			throw new IllegalArgumentException("give a method's name after the service's full name, * for any "
					+ "characters (shop.Inventory/Get*), but was '" + spelling + "'");
		}
		Pattern methods = Pattern.compile(Pattern.quote(method).replace("*", "\\E.*\\Q"));
		return new GrpcMethodPattern(spelling, packageOf ? name + "." : name, packageOf, methods);
	}

	@Override
	public boolean matches(PartnerCall call) {
		if (!(call instanceof GrpcMethod grpc)) {
			return false;
		}
		String service = grpc.service();
		if (this.packageOf ? !service.startsWith(this.service) : !service.equals(this.service)) {
			return false;
		}
		return this.method.matcher(grpc.method()).matches();
	}

	@Override
	public String toString() {
		return this.spelling;
	}

}
