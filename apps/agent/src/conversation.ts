// The conversation, from the patient's text to a booking (or the reason there is none): the API
// calls in order, with the decisions taken by the pure modules (wanted, matching, ranking).
import { randomUUID } from "node:crypto";
import { errorCodeOf } from "@clinic/client";
import { formatLocal, localOf } from "./localTime.ts";
import { closestNames, isAmbiguous, mentionMatchesName, mergeMatches, narrowByProvider } from "./matching.ts";
import { type Outcome, proposalJson, wantedJson } from "./outcome.ts";
import { answersFor } from "./answers.ts";
import { askNumber, chooseSlot, patientName } from "./prompts.ts";
import type { AnswerValue } from "./questions.ts";
import { proposeSlots } from "./ranking.ts";
import { parseRecurrence, planSeries, type SeriesPlan } from "./recurrence.ts";
import { describeService, describeWanted } from "./render.ts";
import type { Clinic, Run, Service } from "./run.ts";
import { bookSeriesFromText } from "./series.ts";
import { parseRequest, withoutMention, type ParsedRequest } from "./wanted.ts";

/** The whole conversation, from the text to a booking (or the reason there is none). */
export async function bookFromText(run: Run): Promise<Outcome> {
  const { api, options, spin } = run;
  const clinic = await resolveClinic(run);
  if ("status" in clinic) return clinic;
  const now = run.io.now?.() ?? new Date();
  // "every Tuesday at 9 for 10 weeks": a series; its phrases are left out of the service search.
  const recurrence = parseRecurrence(options.text, now, clinic.timezone);
  if (recurrence.kind === "error") return { status: "usage_error", message: recurrence.message };
  let plan: SeriesPlan | undefined;
  if (recurrence.kind === "series") {
    const planned = planSeries(recurrence.recurrence, now, clinic.timezone);
    if (!planned.ok) return { status: "usage_error", message: planned.message };
    plan = planned.plan;
  }
  const request = parseRequest(recurrence.kind === "series" ? recurrence.rest : options.text, now, clinic.timezone);
  if (!request.serviceQuery) {
    return { status: "usage_error", message: `say which service to book; "${options.text}" only names a time` };
  }

  const found = await findService(run, clinic, request);
  if ("status" in found) return found;
  const service = found.service;

  const provider = await providerFor(run, clinic, service, request.providerMention);
  if (plan) return bookSeriesFromText(run, clinic, service, provider, plan);
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
  /** The answers to the service's questions, asked once (a taken slot does not ask them again). */
  let answered: { answers: Record<string, AnswerValue> } | undefined;
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
    const got = answered ?? (await answersFor(run, service));
    if ("status" in got) return got;
    answered = got;
    const answers = service.questions.length > 0 ? { answers: got.answers } : {};
    try {
      const appointment = await spin("Booking", () =>
        api.appointments.book.mutate({
          clinic_id: clinic.id,
          service_id: service.id,
          start: chosen.slot.start,
          ...(provider.id ? { provider_id: provider.id } : {}),
          patient: {
            name,
            ...(options.email ? { email: options.email } : {}),
            ...(options.phone ? { phone_e164: options.phone } : {}),
          },
          ...answers,
          // A retry of this request (e.g. after a lost response) must not book twice.
          idempotency_key: randomUUID(),
        }),
      );
      return {
        status: "booked",
        clinic: { id: clinic.id, name: clinic.name, timezone: clinic.timezone },
        service: {
          id: service.id,
          name: service.name,
          duration_min: service.duration_min,
          provider_id: service.provider_id,
          provider_name: service.provider_name,
        },
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
  const answers = await spin("Searching services", () =>
    Promise.all(queries.map((q) => api.services.search.query({ clinic_id: clinic.id, q, limit: 5 }))),
  );
  const merged = mergeMatches(answers.map((a) => a.matches));
  if (merged.length === 0) {
    const { services } = await spin("Listing services", () =>
      api.services.list.query({ clinic_id: clinic.id, limit: 500 }),
    );
    return {
      status: "no_matching_service",
      query: request.serviceQuery,
      closest: closestNames(
        request.serviceQuery,
        services.map((s) => s.name),
      ),
    };
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
async function providerFor(
  run: Run,
  clinic: Clinic,
  service: Service,
  mention: string | undefined,
): Promise<{ id: string | undefined; name: string | null }> {
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
    ({ providers } = await run.spin("Looking up providers", () =>
      run.api.providers.list.query({ clinic_id: clinic.id, q: mention, status: "approved" }),
    ));
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
  run.say(
    named.length > 1
      ? `Note: several providers match "${mention}"; any of them will do.`
      : `Note: no provider matches "${mention}"; any provider will do.`,
  );
  return { id: undefined, name: null };
}
