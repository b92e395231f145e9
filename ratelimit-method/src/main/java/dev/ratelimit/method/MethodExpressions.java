package dev.ratelimit.method;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.ratelimit.rules.InvalidRateLimitRuleException;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The SpEL keys and costs of {@link dev.ratelimit.RateLimited} bean methods: parsed and checked once, at startup,
 * against the method's parameters (a misspelt {@code #usrId} stops the application instead of charging every call
 * to one budget), then evaluated per call over its arguments, with {@code @name} reaching the application's beans.
 */
final class MethodExpressions {

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	private MethodExpressions() {
	}

	/**
	 * Parses an expression of a method's annotation and checks that every variable it reads is one of the method's
	 * parameters ({@code #name}, {@code #p0}, {@code #a0}) or {@code #root}/{@code #this}.
	 * @param rule the rule, for the error
	 * @param attribute {@code key} or {@code cost}
	 * @param text the expression
	 * @param method the method
	 * @return the expression
	 * @throws InvalidRateLimitRuleException when it does not parse or reads an unknown variable
	 */
	static Expression parse(String rule, String attribute, String text, Method method) {
		return parse(rule, attribute, text, method, Set.of());
	}

	/**
	 * Parses an expression that may also read variables the call sets once it returned, such as {@code #result}.
	 */
	static Expression parse(String rule, String attribute, String text, Method method, Set<String> more) {
		Expression expression;
		try {
			expression = PARSER.parseExpression(text);
		}
		catch (ParseException ex) {
			throw new InvalidRateLimitRuleException(rule, attribute, text,
					"not a SpEL expression (" + ex.getSimpleMessage() + "); write one over the method's arguments, "
							+ "such as #userId or #order.customerId");
		}
		Set<String> known = variables(method);
		known.addAll(more);
		List<String> read = new ArrayList<>();
		if (expression instanceof SpelExpression spel) {
			collect(spel.getAST(), read);
		}
		for (String variable : read) {
			if (!known.contains(variable)) {
				String[] names = PARAMETER_NAMES.getParameterNames(method);
				throw new InvalidRateLimitRuleException(rule, attribute, text, "#" + variable
						+ " is not a parameter of the method; it has " + describe(names, method.getParameterCount())
						+ ((names == null) ? " (compile with -parameters to use their names)" : ""));
			}
		}
		return expression;
	}

	private static String describe(String @Nullable [] names, int count) {
		if (count == 0) {
			return "no parameters";
		}
		List<String> each = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			each.add((names != null && i < names.length) ? "#" + names[i] + " (#p" + i + ")" : "#p" + i);
		}
		return String.join(", ", each);
	}

	private static Set<String> variables(Method method) {
		Set<String> known = new LinkedHashSet<>(List.of("root", "this"));
		String[] names = PARAMETER_NAMES.getParameterNames(method);
		for (int i = 0; i < method.getParameterCount(); i++) {
			known.add("p" + i);
			known.add("a" + i);
		}
		if (names != null) {
			// a Kotlin suspend function's names leave out its continuation
			known.addAll(List.of(names));
		}
		return known;
	}

	private static void collect(SpelNode node, List<String> variables) {
		if (node instanceof VariableReference) {
			String spelled = node.toStringAST();
			variables.add(spelled.startsWith("#") ? spelled.substring(1) : spelled);
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collect(node.getChild(i), variables);
		}
	}

	/**
	 * Returns the context one call's expressions are evaluated in.
	 * @param method the method
	 * @param arguments the call's arguments
	 * @param target the bean
	 * @param beanFactory resolves {@code @name}
	 * @return the context
	 */
	static EvaluationContext context(Method method, @Nullable Object[] arguments, Object target,
			@Nullable BeanFactory beanFactory) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(new Call(method, arguments, target),
				method, arguments, PARAMETER_NAMES);
		if (beanFactory != null) {
			context.setBeanResolver(new BeanFactoryResolver(beanFactory));
		}
		return context;
	}

	/**
	 * The root object of a call's expressions: {@code #root.method}, {@code #root.args}, {@code #root.target}.
	 *
	 * @param method the method
	 * @param args the arguments
	 * @param target the bean
	 */
	record Call(Method method, @Nullable Object[] args, Object target) {
	}

}
