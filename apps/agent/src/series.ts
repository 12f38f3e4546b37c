// Booking a series (CONTRACT §14 R1) from a plan the text gave (recurrence.ts): a dry run shows
// every date and whether it is free, the user confirms (--yes: the free dates are booked, the others
// skipped; --all-or-nothing: all or none), then one `series.book` with a fresh idempotency key.
import { randomUUID } from "node:crypto";
import { errorCodeOf, problemOf } from "@clinic/client";
import { answersFor } from "./answers.ts";
import { formatLocal, localOf } from "./localTime.ts";
import type { Outcome, SeriesDateJson, SeriesPreviewJson } from "./outcome.ts";
import { askYesNo, patientName } from "./prompts.ts";
import type { SeriesPlan } from "./recurrence.ts";
import type { Clinic, Run, Series, SeriesPreview, Service } from "./run.ts";

type Mode = SeriesPreviewJson["mode"];

/** At most this many dry runs and bookings when dates are taken meanwhile. */
const attempts = 3;

/** "slot is outside working hours; …": the distinct reasons a date is not free, short. */
export function reasonsText(reasons: SeriesDateJson["reasons"]): string {
  const details = [...new Set(reasons.map((r) => r.detail || r.code))];
  return details.length > 2 ? `${details.slice(0, 2).join("; ")}; …` : details.join("; ");
}

/** Books the planned series for the service (and the provider, when one was resolved). */
export async function bookSeriesFromText(
  run: Run,
  clinic: Clinic,
  service: Service,
  provider: { id: string | undefined; name: string | null },
  plan: SeriesPlan,
): Promise<Outcome> {
  const { api, options, spin } = run;
  const tz = clinic.timezone;
  run.say(`Series: ${plan.description}, from ${formatLocal(localOf(plan.start, tz))} (clinic time, ${tz}).`);
  // Every occurrence carries the answers, and the dry run checks them too: they come first.
  const answered = await answersFor(run, service);
  if ("status" in answered) return answered;
  const request = {
    clinic_id: clinic.id,
    service_id: service.id,
    start: plan.start,
    rrule: plan.rrule,
    ...(provider.id ? { provider_id: provider.id } : {}),
    ...(service.questions.length > 0 ? { answers: answered.answers } : {}),
  };
  const contact = {
    ...(options.email ? { email: options.email } : {}),
    ...(options.phone ? { phone_e164: options.phone } : {}),
  };
  for (let attempt = 0; attempt < attempts; attempt++) {
    let preview: SeriesPreview;
    try {
      // The dry run needs a patient; the name does not change which dates are free.
      const answer = await spin("Checking the series' dates", () =>
        api.series.book.mutate({
          ...request,
          patient: { name: options.name ?? "Preview", ...contact },
          mode: "skip_unavailable",
          dry_run: true,
        }),
      );
      if (!("dry_run" in answer)) throw new Error("the server booked a series that was asked for as a dry run");
      preview = answer;
    } catch (error) {
      if (errorCodeOf(error) !== "FORBIDDEN") throw error;
      return {
        status: "error",
        code: "FORBIDDEN",
        detail: `booking a series needs the STAFF role in this clinic (${problemOf(error)?.detail ?? "forbidden"})`,
      };
    }
    const dates = datesOf(preview, tz).map((d) => ({
      start: d.start,
      start_local: d.start_local,
      bookable: d.bookable,
      reasons: d.reasons,
    }));
    const free = dates.filter((d) => d.bookable).length;
    const mode: Mode = free === dates.length ? "all_or_nothing" : "skip_unavailable";
    const previewJson: SeriesPreviewJson = {
      description: plan.description,
      rrule: plan.rrule,
      start_local: localOf(plan.start, tz),
      mode,
      dates,
    };
    showDates(run, service, provider.name ?? service.provider_name, preview, tz);
    if (free === 0) {
      return {
        status: "not_booked",
        reason: `none of the series' ${String(dates.length)} dates is free`,
        series: previewJson,
      };
    }
    if (free < dates.length && options.allOrNothing) {
      return {
        status: "not_booked",
        reason: `${String(dates.length - free)} of the series' ${String(dates.length)} dates are not free (--all-or-nothing)`,
        series: previewJson,
      };
    }
    if (!options.yes) {
      if (!run.interactive)
        return { status: "not_booked", reason: "pass --yes to book the series", series: previewJson };
      const question =
        free === dates.length
          ? `Book these ${String(free)} appointments? [y/N] `
          : `Book the ${String(free)} free dates and skip the other ${String(dates.length - free)}? [y/N] `;
      if (!(await askYesNo(run, question))) return { status: "not_booked", reason: "series not confirmed" };
    }
    const name = await patientName(run);
    if (!name) return { status: "not_booked", reason: "no patient name given" };
    try {
      const answer = await spin("Booking the series", () =>
        api.series.book.mutate({
          ...request,
          patient: { name, ...contact },
          mode,
          // A retry of this request (e.g. after a lost response) must not book the series twice.
          idempotency_key: randomUUID(),
        }),
      );
      if ("dry_run" in answer) throw new Error("the server answered a booking with a dry run");
      return seriesBooked(clinic, service, plan, answer);
    } catch (error) {
      // A date was taken between the dry run and the booking: check the dates again.
      if (errorCodeOf(error) !== "SLOT_UNAVAILABLE") throw error;
      run.say("Some of the dates were just taken; checking the series again.");
    }
  }
  return { status: "not_booked", reason: "the series' dates kept being taken meanwhile; run again" };
}

function showDates(
  run: Run,
  service: Service,
  providerName: string | null,
  preview: SeriesPreview,
  timeZone: string,
): void {
  run.say(`Dates for ${service.name} (${String(service.duration_min)} min${providerName ? `, ${providerName}` : ""}):`);
  const dates = datesOf(preview, timeZone);
  const width = String(dates.length).length;
  const minutes = service.duration_min * 60_000;
  dates.forEach((d, i) => {
    const when = `${formatLocal(d.start_local)}–${localOf(new Date(d.start.getTime() + minutes), timeZone).slice(11)}`;
    run.say(`  ${String(i + 1).padStart(width)}. ${when}${d.bookable ? "" : `  not free: ${reasonsText(d.reasons)}`}`);
  });
}

/** Every date of the series by start: those the dry run would book, and its conflicts (not free). */
function datesOf(preview: SeriesPreview, timeZone: string) {
  return [
    ...preview.occurrences.map((o) => ({
      start: o.start,
      start_local: o.start_local,
      bookable: true,
      reasons: o.reasons,
    })),
    ...preview.conflicts.map((c) => ({
      start: c.start,
      start_local: localOf(c.start, timeZone),
      bookable: false,
      reasons: c.reasons,
    })),
  ].sort((a, b) => a.start.getTime() - b.start.getTime());
}

function seriesBooked(clinic: Clinic, service: Service, plan: SeriesPlan, series: Series): Outcome {
  const tz = clinic.timezone;
  return {
    status: "series_booked",
    clinic: { id: clinic.id, name: clinic.name, timezone: tz },
    service: {
      id: service.id,
      name: service.name,
      duration_min: service.duration_min,
      provider_id: service.provider_id,
      provider_name: service.provider_name,
    },
    description: plan.description,
    rrule: plan.rrule,
    series,
    occurrences: series.occurrences.map((a) => ({
      id: a.id,
      start: a.start,
      end: a.end,
      start_local: localOf(a.start, tz),
      end_local: localOf(a.end, tz),
      provider_name: a.provider_name,
      status: a.status,
    })),
    skipped: series.skipped.map((s) => ({ start: s.start, start_local: localOf(s.start, tz), reasons: s.reasons })),
  };
}
