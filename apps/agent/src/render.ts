// How the agent speaks: the final report and the descriptions it shows along the way.
import { daysBetween, formatDate, formatLocal, formatMinutes } from "./localTime.ts";
import { exitCodeOf, type Outcome } from "./outcome.ts";
import type { Run, Service } from "./run.ts";
import { reasonsText } from "./series.ts";
import type { WantedTime } from "./wanted.ts";

/** Prints the final result: one JSON object with --json, else a sentence (errors on stderr). */
export function report(run: Run, outcome: Outcome): void {
  const { io } = run;
  if (run.options.json) {
    io.stdout(`${JSON.stringify({ ...outcome, exit_code: exitCodeOf[outcome.status] }, null, 2)}\n`);
    return;
  }
  switch (outcome.status) {
    case "booked": {
      const who = outcome.appointment.provider_name;
      const answers = outcome.appointment.answers.map((a) => `  ${a.label}: ${answerText(a.value)}\n`).join("");
      io.stdout(
        `Booked: ${outcome.service.name} with ${who}, ${formatLocal(outcome.start_local)}–${outcome.end_local.slice(11)} (${outcome.clinic.timezone}).\n` +
          `Appointment ${outcome.appointment.id} for ${outcome.appointment.patient.name}.\n` +
          (answers ? `Answers given:\n${answers}` : ""),
      );
      return;
    }
    case "series_booked": {
      const { occurrences, skipped } = outcome;
      const lines = [
        `Booked a series: ${outcome.service.name}, ${outcome.description} (${outcome.clinic.timezone}).`,
        ...occurrences.map((o) => `  ${formatLocal(o.start_local)}–${o.end_local.slice(11)} with ${o.provider_name}`),
        ...(skipped.length > 0
          ? [
              `Skipped ${String(skipped.length)} date${skipped.length === 1 ? "" : "s"} (not free):`,
              ...skipped.map((s) => `  ${formatLocal(s.start_local)}: ${reasonsText(s.reasons)}`),
            ]
          : []),
        `Series ${outcome.series.id} for ${outcome.series.patient.name}: ${String(occurrences.length)} appointment${occurrences.length === 1 ? "" : "s"}.`,
      ];
      io.stdout(`${lines.join("\n")}\n`);
      return;
    }
    case "no_matching_service":
      io.stderr(
        `No service matches "${outcome.query}".` +
          (outcome.closest.length > 0
            ? ` Closest names: ${outcome.closest.map((n) => `"${n}"`).join(", ")}.\n`
            : " The clinic has no similar service.\n"),
      );
      return;
    case "no_slots":
      io.stderr(
        `No free slots for ${outcome.service}${outcome.provider ? ` with ${outcome.provider}` : ""} ` +
          `${outcome.from === outcome.to ? `on ${formatDate(outcome.from)}` : `from ${formatDate(outcome.from)} to ${formatDate(outcome.to)}`} ` +
          `(clinic time, ${outcome.timezone}). Try other days.\n`,
      );
      return;
    case "not_booked":
      io.stderr(`Nothing booked: ${outcome.reason}.\n`);
      return;
    case "questions_unanswered":
      io.stderr(
        `Nothing booked: ${outcome.service.name} asks ${outcome.unanswered.length === 1 ? "a question" : "questions"} the agent cannot answer:\n` +
          outcome.unanswered.map((q) => `  ${q.key} ("${q.label}"): ${q.reason}\n`).join(""),
      );
      return;
    case "usage_error":
      io.stderr(
        `error: ${outcome.message}\n` + (outcome.clinics ?? []).map((c) => `  --clinic ${c.id}  ${c.name}\n`).join(""),
      );
      return;
    case "error":
      io.stderr(
        `error: ${outcome.code}: ${outcome.detail}\n` +
          (outcome.errors ?? []).map((e) => `  ${e.path}: ${e.message}\n`).join(""),
      );
      return;
  }
}

/** An answer as the report shows it: yes/no, options joined, text and numbers as they are. */
export function answerText(value: string | string[] | boolean | number): string {
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}

export function describeService(service: Service): string {
  return `${service.name} (${String(service.duration_min)} min${service.provider_name ? `, ${service.provider_name}` : ", any provider"})`;
}

/** "Tue 31 Mar 2026, afternoon (12:00–18:00)" — what the agent understood, for the user to check. */
export function describeWanted(wanted: WantedTime): string {
  const span = daysBetween(wanted.from, wanted.to);
  const dates =
    span === 0
      ? formatDate(wanted.from)
      : wanted.preferredDates.length > 0 && wanted.preferredDates.length <= 3 && wanted.preferredDates.length < span + 1
        ? wanted.preferredDates.map(formatDate).join(", ")
        : `${formatDate(wanted.from)} – ${formatDate(wanted.to)}${wanted.defaultRange ? " (no date given: the next 7 days)" : ""}`;
  const part = wanted.partOfDay
    ? `, ${wanted.partOfDay.name} (${formatMinutes(wanted.partOfDay.fromMin)}–${formatMinutes(wanted.partOfDay.toMin)})`
    : "";
  const time = wanted.timeOfDay !== undefined ? `, around ${formatMinutes(wanted.timeOfDay)}` : "";
  return `${dates}${part}${time}`;
}
