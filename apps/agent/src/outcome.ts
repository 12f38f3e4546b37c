// What a run ends with: the outcome (printed as it is with --json) and its exit code.
import { problemOf } from "@clinic/client";
import { formatMinutes } from "./localTime.ts";
import type { RankedSlot } from "./ranking.ts";
import type { Appointment, Clinic, Series, Service, Slot } from "./run.ts";
import type { WantedTime } from "./wanted.ts";

/** The agent's exit codes. */
export const exitCodes = { booked: 0, error: 1, usage: 2, nothingBooked: 3 } as const;

/** The result of a run; with --json it is printed as it is. */
export type Outcome =
  | {
      status: "booked";
      clinic: Pick<Clinic, "id" | "name" | "timezone">;
      service: Pick<Service, "id" | "name" | "duration_min" | "provider_id" | "provider_name">;
      appointment: Appointment;
      start_local: string;
      end_local: string;
      wanted: WantedJson;
    }
  | {
      status: "series_booked";
      clinic: Pick<Clinic, "id" | "name" | "timezone">;
      service: Pick<Service, "id" | "name" | "duration_min" | "provider_id" | "provider_name">;
      /** What the agent understood ("every Tuesday at 09:00, 10 times") and the rule it sent. */
      description: string;
      rrule: string;
      /** The series as the API answered it (occurrences are appointments, with `series_id`). */
      series: Series;
      /** The booked occurrences in clinic time, for reading. */
      occurrences: SeriesOccurrenceJson[];
      /** The dates not booked (skip_unavailable) and why. */
      skipped: SeriesDateJson[];
    }
  | { status: "no_matching_service"; query: string; closest: string[] }
  | {
      status: "no_slots";
      service: string;
      provider: string | null;
      from: string;
      to: string;
      timezone: string;
      wanted: WantedJson;
    }
  | {
      status: "not_booked";
      reason: string;
      matches?: { name: string; provider_name: string | null; score: number }[];
      proposals?: ProposalJson[];
      wanted?: WantedJson;
      series?: SeriesPreviewJson;
    }
  | {
      status: "questions_unanswered";
      service: Pick<Service, "id" | "name">;
      /** The service's questions that block the booking (§19), and why each does. */
      unanswered: UnansweredJson[];
    }
  | { status: "usage_error"; message: string; clinics?: { id: string; name: string }[] }
  | { status: "error"; code: string; detail: string; errors?: { path: string; message: string }[] };

/** A question of the service the agent could not answer: a required one without an answer, or a declined consent. */
export interface UnansweredJson {
  key: string;
  label: string;
  type: string;
  required: boolean;
  reason: string;
}

/** What the agent understood of the wanted time, for scripts to check. */
export interface WantedJson {
  from: string;
  to: string;
  preferred_dates: string[];
  part_of_day: string | null;
  time_of_day: string | null;
  default_range: boolean;
}

export function wantedJson(wanted: WantedTime): WantedJson {
  return {
    from: wanted.from,
    to: wanted.to,
    preferred_dates: wanted.preferredDates,
    part_of_day: wanted.partOfDay?.name ?? null,
    time_of_day: wanted.timeOfDay === undefined ? null : formatMinutes(wanted.timeOfDay),
    default_range: wanted.defaultRange,
  };
}

export interface ProposalJson {
  start: Date;
  end: Date;
  start_local: string;
  in_wanted_time: boolean;
}

/** A booked occurrence of a series. */
export interface SeriesOccurrenceJson {
  id: string;
  start: Date;
  end: Date;
  start_local: string;
  end_local: string;
  provider_name: string;
  status: string;
}

/** A date of a series with why it is (or would be) left out; `reasons` empty when it is free. */
export interface SeriesDateJson {
  start: Date;
  start_local: string;
  reasons: { code: string; detail: string; provider_id?: string | undefined }[];
}

/** A series that was checked (dry run) but not booked. */
export interface SeriesPreviewJson {
  description: string;
  rrule: string;
  start_local: string;
  mode: "all_or_nothing" | "skip_unavailable";
  dates: (SeriesDateJson & { bookable: boolean })[];
}

export const exitCodeOf: Record<Outcome["status"], number> = {
  booked: exitCodes.booked,
  series_booked: exitCodes.booked,
  no_matching_service: exitCodes.nothingBooked,
  no_slots: exitCodes.nothingBooked,
  not_booked: exitCodes.nothingBooked,
  questions_unanswered: exitCodes.nothingBooked,
  usage_error: exitCodes.usage,
  error: exitCodes.error,
};

/** An API, network or unexpected failure as an outcome. */
export function failureOf(error: unknown, url: string): Outcome {
  const problem = problemOf(error);
  if (problem) {
    return {
      status: "error",
      code: problem.code,
      detail: problem.detail,
      ...(problem.errors.length > 0 ? { errors: problem.errors } : {}),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const root = cause?.cause instanceof Error ? cause.cause.message : cause?.message;
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|network/i.test(`${message} ${root ?? ""}`)) {
    return { status: "error", code: "NETWORK", detail: `cannot reach the server at ${url}${root ? ` (${root})` : ""}` };
  }
  return { status: "error", code: "UNEXPECTED", detail: message };
}

export function proposalJson(p: RankedSlot<Slot>): ProposalJson {
  return { start: p.slot.start, end: p.slot.end, start_local: p.slot.start_local, in_wanted_time: p.inWanted };
}
