package dev.ratelimit.benchmarks;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link Template}: placeholders and blocks.
 */
class TemplateTests {

	@Test
	void replacesEveryPlaceholderWithItsValue() {
		assertThat(Template.of("t", "{{a}} and {{b}}, {{a}} again").render(Map.of("a", 1, "b", "two")))
			.isEqualTo("1 and two, 1 again");
	}

	@Test
	void takesAValueLiterally() {
		assertThat(Template.of("t", "[{{a}}]").render(Map.of("a", "$1 {{b}} \\"))).isEqualTo("[$1 {{b}} \\]");
	}

	@Test
	void keepsABlockOnlyWhenItsNameHasAValueOtherThanFalse() {
		Template template = Template.of("t", "a{{#x}}, x={{x}}{{/x}}{{#y}}, y{{/y}}.");
		assertThat(template.render(Map.of("x", "1", "y", false))).isEqualTo("a, x=1.");
		assertThat(template.render(Map.of("y", true))).isEqualTo("a, y.");
		assertThat(template.render(Map.of())).isEqualTo("a.");
	}

	@Test
	void keepsABlockWithinABlock() {
		Template template = Template.of("t", "{{#outer}}o{{#inner}}i{{/inner}}{{/outer}}-");
		assertThat(template.render(Map.of("outer", true, "inner", true))).isEqualTo("oi-");
		assertThat(template.render(Map.of("outer", true))).isEqualTo("o-");
		assertThat(template.render(Map.of("inner", true))).isEqualTo("-");
	}

	@Test
	void failsOnAPlaceholderWithoutAValueNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> Template.of("sections/x.md", "{{a}} {{b}}").render(Map.of("a", 1)))
			.withMessage("No value for {{b}} in sections/x.md");
	}

	@Test
	void readsATemplateOfTheReport() {
		assertThat(Template.load("sections/targets.md").render(Map.of("rows", "| a | b | c |\n")))
			.startsWith("## Targets\n\n| Target | Measured | Met |\n|---|---|---|\n| a | b | c |\n");
	}

}
