package dev.ratelimit.rules;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.TemporalAdjusters;
import java.util.List;

import dev.ratelimit.RateLimit;

/**
 * A calendar period of a quota: it starts at local midnight, on Monday, or on the first of the month, in
 * a time zone, whatever the length of that day (daylight-saving changes) or month.
 *
 * @since 0.1.0
 */
public enum CalendarPeriod {

	/** From local midnight to the next. */
	DAY,

	/** From Monday's local midnight to the next Monday's. */
	WEEK,

	/** From the first of the month's local midnight to the next month's. */
	MONTH;

	/**
	 * Returns the period an instant falls in.
	 * @param now the instant
	 * @param zone the time zone the period's boundaries are local midnights of
	 * @return the period
	 */
	public Span spanOf(Instant now, ZoneId zone) {
		LocalDate today = now.atZone(zone).toLocalDate();
		LocalDate first = switch (this) {
			case DAY -> today;
			case WEEK -> today.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
			case MONTH -> today.withDayOfMonth(1);
		};
		LocalDate next = switch (this) {
			case DAY -> first.plusDays(1);
			case WEEK -> first.plusWeeks(1);
			case MONTH -> first.plusMonths(1);
		};
		ZonedDateTime start = first.atStartOfDay(zone);
		ZonedDateTime end = next.atStartOfDay(zone);
		return new Span(first.toString(), Duration.between(start, end), Duration.between(now, end.toInstant()));
	}

	/**
	 * Returns the longest a period lasts, for checking a quota's limit.
	 * @return a day and an hour, a week and an hour, or 31 days and an hour
	 */
	public Duration longest() {
		return switch (this) {
			case DAY -> Duration.ofHours(25);
			case WEEK -> Duration.ofDays(7).plusHours(1);
			case MONTH -> Duration.ofDays(31).plusHours(1);
		};
	}

	/**
	 * The budget of a calendar quota in one period.
	 *
	 * @param id the budget id, naming the period
	 * @param limits the limits, their windows the period's length
	 * @param remaining how long the period has still to run: no refusal lasts longer
	 */
	public record Budget(String id, List<RateLimit> limits, Duration remaining) {
	}

	/**
	 * One period of a quota.
	 *
	 * @param label the local date it starts on, such as {@code 2026-03-29}: part of the budget's key
	 * @param length how long it lasts
	 * @param remaining how long it has still to run
	 */
	public record Span(String label, Duration length, Duration remaining) {
	}

}
