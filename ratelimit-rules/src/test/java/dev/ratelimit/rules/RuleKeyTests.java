package dev.ratelimit.rules;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RuleKey} and {@link PlanSource}: every form a rule's {@code key} and {@code plan} take is read
 * once into a typed value that spells itself as configured, and no other form is read.
 */
class RuleKeyTests {

	@ParameterizedTest
	@CsvSource({ "ip, ip, ClientAddress", "principal, principal, Principal", "header:X-Api-Key, header, Header",
			"param:tenant, param, Param", "bean:tenants, bean, Bean" })
	void readsEveryFormOfAKeyIntoItsOwnType(String spelling, String kind, String type) {
		RuleKey key = RuleKey.parse(spelling);
		assertThat(key).isNotNull();
		assertThat(key.getClass().getSimpleName()).isEqualTo(type);
		assertThat(key.kind()).isEqualTo(kind);
		assertThat(key.spelling()).isEqualTo(spelling);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "address", "header:", "header:  ", "param:", "bean:", "principal:me", "ip:1.2.3.4",
			"cookie:session", "resolver" })
	void readsNoOtherKey(String spelling) {
		assertThat(RuleKey.parse(spelling)).isNull();
	}

	@ParameterizedTest
	@CsvSource({ "header: X-Api-Key , header:X-Api-Key", "bean: tenants, bean:tenants" })
	void stripsTheNameAfterTheColon(String spelling, String stripped) {
		assertThat(RuleKey.parse(spelling).spelling()).isEqualTo(stripped);
	}

	@ParameterizedTest
	@CsvSource({ "bean:plans, Bean", "header:X-Plan, Header" })
	void readsBothPlanSources(String spelling, String type) {
		PlanSource source = PlanSource.parse(spelling);
		assertThat(source).isNotNull();
		assertThat(source.getClass().getSimpleName()).isEqualTo(type);
		assertThat(source.spelling()).isEqualTo(spelling);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "bean", "bean:", "header: ", "param:plan", "plans" })
	void readsNoOtherPlanSource(String spelling) {
		assertThat(PlanSource.parse(spelling)).isNull();
	}

}
