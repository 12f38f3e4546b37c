// The booking agent: patient text → service → wanted time → proposals → booking, over the typed
// client. The decisions (parsing, ranking, ambiguity) live in pure modules; this file does the
// calls, the questions and the output, with every side channel injected so tests can drive it.
import { randomUUID } from "node:crypto";
import { createClient, errorCodeOf, problemOf, type ClientOptions, type ClinicClient, type RouterOutputs } from "@clinic/client";
import { parseAgentArgs, usage, type AgentOptions } from "./args.ts";
import type { EnvSettings } from "./config.ts";
import { daysBetween, formatDate, formatLocal, formatMinutes, localOf } from "./localTime.ts";
import { closestNames, isAmbiguous, mentionMatchesName, mergeMatches, narrowByProvider } from "./matching.ts";
import { proposeSlots, type RankedSlot } from "./ranking.ts";
import { createSpinner, type Spin } from "./spinner.ts";
import { parseRequest, withoutMention, type ParsedRequest, type WantedTime } from "./wanted.ts";

/** The agent's exit codes. */
export const exitCodes = { booked: 0, error: 1, usage: 2, nothingBooked: 3 } as const;

/** Everything the agent touches outside itself; the CLI passes the process's, tests their own. */
export interface AgentIO {
  /** Results (and the conversation, unless --json). */
  stdout: (text: string) => void;
  /** Errors, notes and the spinner. */
  stderr: (text: string) => void;
  /** Asks the user and resolves with the answer; absent when nobody can answer (stdin is no terminal). */
  ask?: ((question: string) => Promise<string>) | undefined;
  /** Animate a spinner on stderr (stderr is a terminal). */
  stderrIsTTY?: boolean | undefined;
  /** Environment fallbacks for --url, --token and --clinic (see config.ts). */
  env?: EnvSettings | undefined;
  /** The clock (today's date, "next Tuesday"). */
  now?: (() => Date) | undefined;
  /** The fetch the client uses. */
  fetch?: ClientOptions["fetch"];
}

type Clinic = RouterOutputs["clinics"]["get"];
type Match = RouterOutputs["services"]["search"]["matches"][number];
type Service = Match["service"];
type Slot = RouterOutputs["availability"]["get"]["slots"][number];
type Appointment = RouterOutputs["appointments"]["book"];

/** The result of a run; with --json it is printed as it is. */
type Outcome =
  | {
      status: "booked";
      clinic: Pick<Clinic, "id" | "name" | "timezone">;
      service: Pick<Service, "id" | "name" | "duration_min" | "provider_id" | "provider_name">;
      appointment: Appointment;
      start_local: string;
      end_local: string;
      wanted: WantedJson;
    }
  | { status: "no_matching_service"; query: string; closest: string[] }
  | { status: "no_slots"; service: string; provider: string | null; from: string; to: string; timezone: string; wanted: WantedJson }
  | {
      status: "not_booked";
      reason: string;
      matches?: { name: string; provider_name: string | null; score: number }[];
      proposals?: ProposalJson[];
      wanted?: WantedJson;
    }
  | { status: "usage_error"; message: string; clinics?: { id: string; name: string }[] }
  | { status: "error"; code: string; detail: string; errors?: { path: string; message: string }[] };

/** What the agent understood of the wanted time, for scripts to check. */
interface WantedJson {
  from: string;
  to: string;
  preferred_dates: string[];
  part_of_day: string | null;
  time_of_day: string | null;
  default_range: boolean;
}

function wantedJson(wanted: WantedTime): WantedJson {
  return {
    from: wanted.from,
    to: wanted.to,
    preferred_dates: wanted.preferredDates,
    part_of_day: wanted.partOfDay?.name ?? null,
    time_of_day: wanted.timeOfDay === undefined ? null : formatMinutes(wanted.timeOfDay),
    default_range: wanted.defaultRange,
  };
}

interface ProposalJson {
  start: Date;
  end: Date;
  start_local: string;
  in_wanted_time: boolean;
}

const exitCodeOf: Record<Outcome["status"], number> = {
  booked: exitCodes.booked,
  no_matching_service: exitCodes.nothingBooked,
  no_slots: exitCodes.nothingBooked,
  not_booked: exitCodes.nothingBooked,
  usage_error: exitCodes.usage,
  error: exitCodes.error,
};

const noEnv: EnvSettings = { url: undefined, token: undefined, clinic: undefined };

/** What a run needs at every step. */
interface Run {
  api: ClinicClient;
  options: AgentOptions;
  io: AgentIO;
  spin: Spin;
  /** A question can be put to the user. */
  interactive: boolean;
  /** Conversation output: stdout in text mode, nothing with --json. */
  say: (line: string) => void;
}

/**
 * Runs the booking agent on command-line arguments and resolves with its exit code: 0 booked,
 * 1 error, 2 usage, 3 nothing booked. Never throws for API or network failures (they are
 * reported), and never touches the process: output, questions and the clock come from `io`.
 */
export async function main(argv: readonly string[], io: AgentIO): Promise<number> {
  const parsed = parseAgentArgs(argv, io.env ?? noEnv);
  if (parsed.kind === "help") {
    io.stdout(`${usage}\n`);
    return exitCodes.booked;
  }
  if (parsed.kind === "usage") {
    if (parsed.json) io.stdout(`${JSON.stringify({ status: "usage_error", message: parsed.message, exit_code: exitCodes.usage }, null, 2)}\n`);
    else io.stderr(`error: ${parsed.message}\n(see --help)\n`);
    return exitCodes.usage;
  }
  const { options } = parsed;
  const run: Run = {
    api: createClient({ url: options.url, token: options.token, ...(io.fetch ? { fetch: io.fetch } : {}) }),
    options,
    io,
    spin: createSpinner(io.stderr, !options.json && io.stderrIsTTY === true),
    interactive: !options.json && !options.yes && io.ask !== undefined,
    say: options.json
      ? () => undefined
      : (line) => {
          io.stdout(`${line}\n`);
        },
  };
  let outcome: Outcome;
  try {
    outcome = await bookFromText(run);
  } catch (error) {
    outcome = failureOf(error, options.url);
  }
  report(run, outcome);
  return exitCodeOf[outcome.status];
}

/** An API, network or unexpected failure as an outcome. */
function failureOf(error: unknown, url: string): Outcome {
  const problem = problemOf(error);
  if (problem) {
    return { status: "error", code: problem.code, detail: problem.detail, ...(problem.errors.length > 0 ? { errors: problem.errors } : {}) };
  }
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const root = cause?.cause instanceof Error ? cause.cause.message : cause?.message;
  if (/fetch failed|ECONNREFUSED|ENOTFOUND|network/i.test(`${message} ${root ?? ""}`)) {
    return { status: "error", code: "NETWORK", detail: `cannot reach the server at ${url}${root ? ` (${root})` : ""}` };
  }
  return { status: "error", code: "UNEXPECTED", detail: message };
}

/** Prints the final result: one JSON object with --json, else a sentence (errors on stderr). */
function report(run: Run, outcome: Outcome): void {
  const { io } = run;
  if (run.options.json) {
    io.stdout(`${JSON.stringify({ ...outcome, exit_code: exitCodeOf[outcome.status] }, null, 2)}\n`);
    return;
  }
  switch (outcome.status) {
    case "booked": {
      const who = outcome.appointment.provider_name;
      io.stdout(
        `Booked: ${outcome.service.name} with ${who}, ${formatLocal(outcome.start_local)}–${outcome.end_local.slice(11)} (${outcome.clinic.timezone}).\n` +
          `Appointment ${outcome.appointment.id} for ${outcome.appointment.patient.name}.\n`,
      );
      return;
    }
    case "no_matching_service":
      io.stderr(
        `No service matches "${outcome.query}".` +
          (outcome.closest.length > 0 ? ` Closest names: ${outcome.closest.map((n) => `"${n}"`).join(", ")}.\n` : " The clinic has no similar service.\n"),
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
    case "usage_error":
      io.stderr(
        `error: ${outcome.message}\n` + (outcome.clinics ?? []).map((c) => `  --clinic ${c.id}  ${c.name}\n`).join(""),
      );
      return;
    case "error":
      io.stderr(`error: ${outcome.code}: ${outcome.detail}\n` + (outcome.errors ?? []).map((e) => `  ${e.path}: ${e.message}\n`).join(""));
      return;
  }
}

/** The whole conversation, from the text to a booking (or the reason there is none). */
async function bookFromText(run: Run): Promise<Outcome> {
  const { api, options, spin } = run;
  const clinic = await resolveClinic(run);
  if ("status" in clinic) return clinic;
  const now = run.io.now?.() ?? new Date();
  const request = parseRequest(options.text, now, clinic.timezone);
  if (!request.serviceQuery) {
    return { status: "usage_error", message: `say which service to book; "${options.text}" only names a time` };
  }

  const found = await findService(run, clinic, request);
  if ("status" in found) return found;
  const service = found.service;

  const provider = await providerFor(run, clinic, service, request.providerMention);
  const wanted = request.wanted;
  const availability = await spin("Looking for free slots", () =>
    api.availability.get.query({
      clinic_id: clinic.id,
      service_id: service.id,
      from: wanted.from,
      to: wanted.to,
      ...(provider.id ? { provider_id: provider.id } : {}),
    }),
  );
  const providerName = provider.name ?? service.provider_name;
  run.say(`Looking at ${describeWanted(wanted)} (clinic time, ${clinic.timezone}).`);
  if (availability.slots.length === 0) {
    return {
      status: "no_slots",
      service: service.name,
      provider: providerName,
      from: availability.from,
      to: availability.to,
      timezone: clinic.timezone,
      wanted: wantedJson(wanted),
    };
  }
  let proposals = proposeSlots(availability.slots, wanted);
  while (proposals.length > 0) {
    const chosen = await chooseSlot(run, clinic, service, providerName, proposals, wanted);
    if (!chosen) {
      return {
        status: "not_booked",
        reason: run.interactive ? "no slot chosen" : "pass --yes to book the first proposal",
        proposals: proposals.map((p) => proposalJson(p)),
        wanted: wantedJson(wanted),
      };
    }
    const name = await patientName(run);
    if (!name) return { status: "not_booked", reason: "no patient name given" };
    try {
      const appointment = await spin("Booking", () =>
        api.appointments.book.mutate({
          clinic_id: clinic.id,
          service_id: service.id,
          start: chosen.slot.start,
          ...(provider.id ? { provider_id: provider.id } : {}),
          patient: { name, ...(options.email ? { email: options.email } : {}), ...(options.phone ? { phone_e164: options.phone } : {}) },
          // A retry of this request (e.g. after a lost response) must not book twice.
          idempotency_key: randomUUID(),
        }),
      );
      return {
        status: "booked",
        clinic: { id: clinic.id, name: clinic.name, timezone: clinic.timezone },
        service: { id: service.id, name: service.name, duration_min: service.duration_min, provider_id: service.provider_id, provider_name: service.provider_name },
        appointment,
        start_local: localOf(appointment.start, clinic.timezone),
        end_local: localOf(appointment.end, clinic.timezone),
        wanted: wantedJson(wanted),
      };
    } catch (error) {
      // Someone else took the slot between the query and the booking: offer the others.
      if (errorCodeOf(error) !== "SLOT_UNAVAILABLE") throw error;
      run.say(`${formatLocal(chosen.slot.start_local)} was just taken.`);
      proposals = proposals.filter((p) => p !== chosen);
    }
  }
  return { status: "not_booked", reason: "every proposed slot was taken meanwhile; run again for fresh ones" };
}

/** `--clinic`, or the caller's only clinic. */
async function resolveClinic(run: Run): Promise<Clinic | Outcome> {
  const { api, options, spin } = run;
  if (options.clinicId) {
    const clinicId = options.clinicId;
    return spin("Reading the clinic", () => api.clinics.get.query({ clinic_id: clinicId }));
  }
  const { clinics } = await spin("Looking up your clinics", () => api.clinics.list.query({ limit: 11 }));
  const [only] = clinics;
  if (only && clinics.length === 1) return only;
  if (!only) return { status: "usage_error", message: "you are not a member of any clinic; pass --clinic <uuid>" };
  return {
    status: "usage_error",
    message: `you are a member of ${clinics.length > 10 ? "more than 10" : String(clinics.length)} clinics; pass one with --clinic`,
    clinics: clinics.slice(0, 10).map((c) => ({ id: c.id, name: c.name })),
  };
}

/** The service the text asks for: fuzzy search, narrowed by a named provider, chosen when ambiguous. */
async function findService(run: Run, clinic: Clinic, request: ParsedRequest): Promise<{ service: Service } | Outcome> {
  const { api, spin, options } = run;
  const mention = request.providerMention;
  // With a provider named, also search without the name: service names need not contain it.
  const bare = mention ? withoutMention(request.serviceQuery, mention) : "";
  const queries = bare && bare !== request.serviceQuery ? [request.serviceQuery, bare] : [request.serviceQuery];
  const answers = await spin("Searching services", () => Promise.all(queries.map((q) => api.services.search.query({ clinic_id: clinic.id, q, limit: 5 }))));
  const merged = mergeMatches(answers.map((a) => a.matches));
  if (merged.length === 0) {
    const { services } = await spin("Listing services", () => api.services.list.query({ clinic_id: clinic.id, limit: 500 }));
    return { status: "no_matching_service", query: request.serviceQuery, closest: closestNames(request.serviceQuery, services.map((s) => s.name)) };
  }
  const { matches, narrowed } = narrowByProvider(merged, mention);
  const [best] = matches;
  if (!best) return { status: "no_matching_service", query: request.serviceQuery, closest: [] };
  if (!isAmbiguous(matches.map((m) => m.score))) {
    run.say(`Service: ${describeService(best.service)}${narrowed ? ` (for "${mention ?? ""}")` : ""}.`);
    return { service: best.service };
  }
  const shown = matches.slice(0, 5);
  run.say(`Several services match "${request.serviceQuery}":`);
  const width = Math.max(...shown.map((m) => describeService(m.service).length));
  shown.forEach((m, i) => {
    run.say(`  ${String(i + 1)}. ${describeService(m.service).padEnd(width)}  score ${m.score.toFixed(2)}`);
  });
  if (options.yes) {
    run.say(`Taking the best match: ${best.service.name}.`);
    return { service: best.service };
  }
  if (!run.interactive) {
    return {
      status: "not_booked",
      reason: "several services match equally well; pass --yes to take the best, or name the service more precisely",
      matches: shown.map((m) => ({ name: m.service.name, provider_name: m.service.provider_name, score: m.score })),
    };
  }
  const index = await askNumber(run, `Which service? [1-${String(shown.length)}, Enter = 1, q = quit] `, shown.length);
  const picked = index === undefined ? undefined : shown[index];
  if (!picked) return { status: "not_booked", reason: "no service chosen" };
  return { service: picked.service };
}

/**
 * The provider to book with. An assigned service has its own. For an unassigned one, a provider
 * named in the text is looked up in the provider list — which needs the STAFF role, so for other
 * callers the name is skipped and any free provider will do.
 */
async function providerFor(run: Run, clinic: Clinic, service: Service, mention: string | undefined): Promise<{ id: string | undefined; name: string | null }> {
  if (service.provider_id !== null) {
    if (mention && service.provider_name && !mentionMatchesName(mention, service.provider_name)) {
      // The mention may not be a name at all ("with hot stones"), so state the fact, not a contradiction.
      run.say(`Note: this service is done by ${service.provider_name}.`);
    }
    return { id: undefined, name: service.provider_name };
  }
  if (!mention) return { id: undefined, name: null };
  let providers;
  try {
    ({ providers } = await run.spin("Looking up providers", () => run.api.providers.list.query({ clinic_id: clinic.id, q: mention, status: "approved" })));
  } catch (error) {
    if (errorCodeOf(error) !== "FORBIDDEN") throw error;
    run.say(`Note: checking provider names needs the STAFF role; any provider will do.`);
    return { id: undefined, name: null };
  }
  const named = providers.filter((p) => mentionMatchesName(mention, p.full_name));
  const [only] = named;
  if (only && named.length === 1) {
    run.say(`Provider: ${only.full_name}.`);
    return { id: only.user_id, name: only.full_name };
  }
  run.say(named.length > 1 ? `Note: several providers match "${mention}"; any of them will do.` : `Note: no provider matches "${mention}"; any provider will do.`);
  return { id: undefined, name: null };
}

/** Shows the proposals and picks one: the user's choice, the first with --yes, none otherwise. */
async function chooseSlot(
  run: Run,
  clinic: Clinic,
  service: Service,
  providerName: string | null,
  proposals: RankedSlot<Slot>[],
  wanted: WantedTime,
): Promise<RankedSlot<Slot> | undefined> {
  run.say(`Free slots for ${service.name} (${String(service.duration_min)} min${providerName ? `, ${providerName}` : ""}):`);
  proposals.forEach((p, i) => {
    const outside = p.inWanted ? "" : `  (outside ${wanted.partOfDay ? `the ${wanted.partOfDay.name}` : "the wanted day"})`;
    run.say(`  ${String(i + 1)}. ${formatLocal(p.slot.start_local)}–${localOf(p.slot.end, clinic.timezone).slice(11)}${outside}`);
  });
  if (run.options.yes) return proposals[0];
  if (!run.interactive) return undefined;
  const index = await askNumber(run, `Book which? [1-${String(proposals.length)}, Enter = 1, q = quit] `, proposals.length);
  return index === undefined ? undefined : proposals[index];
}

/** The patient's name: --name, else asked for (a few tries). */
async function patientName(run: Run): Promise<string | undefined> {
  if (run.options.name) return run.options.name;
  const ask = run.io.ask;
  if (!ask) return undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = (await ask("Patient name: ")).trim();
    if (answer) return answer;
  }
  return undefined;
}

/** Asks for a number 1…count; Enter means 1, "q" (or three bad answers) means no choice. */
async function askNumber(run: Run, question: string, count: number): Promise<number | undefined> {
  const ask = run.io.ask;
  if (!ask) return undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = (await ask(question)).trim().toLowerCase();
    if (answer === "") return 0;
    if (answer === "q" || answer === "quit") return undefined;
    const n = Number(answer);
    if (Number.isInteger(n) && n >= 1 && n <= count) return n - 1;
    run.say(`Please answer a number from 1 to ${String(count)}, or q.`);
  }
  return undefined;
}

function describeService(service: Service): string {
  return `${service.name} (${String(service.duration_min)} min${service.provider_name ? `, ${service.provider_name}` : ", any provider"})`;
}

/** "Tue 31 Mar 2026, afternoon (12:00–18:00)" — what the agent understood, for the user to check. */
function describeWanted(wanted: WantedTime): string {
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

function proposalJson(p: RankedSlot<Slot>): ProposalJson {
  return { start: p.slot.start, end: p.slot.end, start_local: p.slot.start_local, in_wanted_time: p.inWanted };
}
