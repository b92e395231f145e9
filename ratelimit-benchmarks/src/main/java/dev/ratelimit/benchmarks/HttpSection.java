package dev.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * The report's HTTP scenario ({@link HttpScenario}) against one sample application: the latency a rule adds.
 */
final class HttpSection {

	private HttpSection() {
	}

	/**
	 * Returns the section of one application.
	 * @param run the results
	 * @param name the application's part of {@code measurements.json}: {@code http} or {@code httpWebflux}
	 * @param stack the template's block that describes the application: {@code servlet} or {@code webflux}
	 * @param what what adds the latency, such as "the interceptor"
	 */
	static String render(RunResults run, String name, String stack, String what) {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put(stack, true);
		values.put("what", what);
		JsonObject http = run.measurement(name);
		if (http == null || !http.has("pooled")) {
			values.put("notMeasured", true);
			values.put("skipped", (http != null && http.has("skipped")) ? ": " + http.get("skipped").getAsString() : "");
			return Template.load("sections/http.md").render(values);
		}
		values.put("measured", true);
		values.put("rulePath", http.get("rulePath").getAsString());
		values.put("noRulePath", http.get("noRulePath").getAsString());
		values.put("connections", http.get("connections").getAsInt());
		values.put("ratePerSecond", http.get("ratePerSecond").getAsInt());
		values.put("warmUpSeconds", http.get("warmUpSeconds"));
		values.put("rounds", http.getAsJsonArray("rounds").size());
		values.put("roundSeconds", http.get("roundSeconds"));
		JsonObject pooled = http.getAsJsonObject("pooled");
		values.put("noRuleRequests", Format.number(pooled.get("noRuleRequests").getAsDouble()));
		values.put("ruleRequests", Format.number(pooled.get("ruleRequests").getAsDouble()));
		values.put("noRuleP50", Format.millis(pooled.get("noRuleP50").getAsDouble()));
		values.put("noRuleP99", Format.millis(pooled.get("noRuleP99").getAsDouble()));
		values.put("ruleP50", Format.millis(pooled.get("ruleP50").getAsDouble()));
		values.put("ruleP99", Format.millis(pooled.get("ruleP99").getAsDouble()));
		values.put("addedP50", Format.millis(pooled.get("ruleP50").getAsDouble() - pooled.get("noRuleP50").getAsDouble()));
		values.put("addedP99", Format.millis(pooled.get("ruleP99").getAsDouble() - pooled.get("noRuleP99").getAsDouble()));
		values.put("roundNoRuleP50", perRound(http, (r) -> r.get("noRuleP50").getAsDouble()));
		values.put("roundNoRuleP99", perRound(http, (r) -> r.get("noRuleP99").getAsDouble()));
		values.put("roundRuleP50", perRound(http, (r) -> r.get("ruleP50").getAsDouble()));
		values.put("roundRuleP99", perRound(http, (r) -> r.get("ruleP99").getAsDouble()));
		values.put("roundAddedP50", perRound(http, (r) -> r.get("ruleP50").getAsDouble() - r.get("noRuleP50").getAsDouble()));
		values.put("roundAddedP99", perRound(http, (r) -> r.get("ruleP99").getAsDouble() - r.get("noRuleP99").getAsDouble()));
		long errors = 0;
		for (JsonElement element : http.getAsJsonArray("rounds")) {
			errors += element.getAsJsonObject().get("errors").getAsLong();
		}
		values.put("errors", errors);
		return Template.load("sections/http.md").render(values);
	}

	private static String perRound(JsonObject http, ToDoubleFunction<JsonObject> value) {
		List<Double> values = new ArrayList<>();
		for (JsonElement element : http.getAsJsonArray("rounds")) {
			values.add(value.applyAsDouble(element.getAsJsonObject()));
		}
		return Stats.of(values).millisWithRange();
	}

}
