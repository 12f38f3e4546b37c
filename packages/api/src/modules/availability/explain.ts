import { z } from "zod";
import type { Db } from "@clinic/db";
import type { Interval } from "../../domain/intervals.ts";
import { type Reason, explainStart, reasonCodes } from "../../domain/slots.ts";
import { formatLocal, formatTimeOfDay, localDateOf } from "../../domain/timezone.ts";
import { instantOutput } from "../../schemas/wire.ts";
import { readScheduleContext } from "./context.ts";
import type { ClosureInterval } from "./schedule.ts";
import { DomainError } from "../../errors.ts";
import { type ServiceInfo, assertCandidate } from "./service.ts";

const HOUR = 3_600_000;

/** Why a start can or cannot be booked, per candidate provider (docs/availability.md#why-no-slot). */
export const explanationOutput = z.object({
  start: instantOutput,
  end: instantOutput,
  bookable: z.boolean(),
  providers: z.array(
    z.object({
      provider_id: z.string(),
      provider_name: z.string(),
      bookable: z.boolean(),
      reasons: z.array(
        z.object({ code: z.enum(reasonCodes), detail: z.string(), appointment_id: z.string().optional() }),
      ),
    }),
  ),
});
export type ExplanationView = z.infer<typeof explanationOutput>;

export interface ExplainQuery {
  clinicId: string;
  timeZone: string;
  serviceId: string;
  providerId?: string | undefined;
  start: Date;
  now: Date;
  /** Whether the caller may see which appointment blocks a start (STAFF and above). */
  showAppointments: boolean;
}

/** The sentence of one reason, in the clinic's wall-clock time. */
export function reasonDetail(
  reason: Reason,
  service: ServiceInfo,
  timeZone: string,
  date: string,
  status: string,
  now: Date,
): string {
  const local = (ms: number) => formatLocal(ms, timeZone).replace("T", " ");
  const time = (ms: number) => formatLocal(ms, timeZone).slice(11);
  const windows = (list: readonly Interval[] | undefined) =>
    list && list.length > 0
      ? list.map((w) => `${formatTimeOfDay(w.start)}–${formatTimeOfDay(w.end)}`).join(", ")
      : "closed all day";
  const span = (i: Interval | undefined) => (i ? `${time(i.start)}–${time(i.end)}` : "");
  switch (reason.code) {
    case "IN_PAST":
      return "the start is not in the future";
    case "MIN_NOTICE":
      return `bookable from ${local(now.getTime() + service.minNoticeMin * 60_000)} (${String(service.minNoticeMin)} minutes' notice)`;
    case "BEYOND_HORIZON":
      return `bookable at most ${String(service.bookingHorizonDays)} days ahead`;
    case "PROVIDER_NOT_APPROVED":
      return `the provider is ${status}`;
    case "CLINIC_HOURS":
      return `outside the clinic's hours on ${date} (${windows(reason.windows)})`;
    case "PROVIDER_HOURS":
      return `outside the provider's hours on ${date} (${windows(reason.windows)})`;
    case "OFF_GRID":
      return `not on the ${String(service.slotStepMin ?? service.durationMin)}-minute grid; nearest starts ${reason.nearest ? `${time(reason.nearest.before)} and ${time(reason.nearest.after)}` : "none"}`;
    case "CLINIC_CLOSURE":
    case "PROVIDER_CLOSURE": {
      const closure = reason.interval as ClosureInterval | undefined;
      const why = closure?.reason ? ` (${closure.reason})` : "";
      return `closed ${closure ? `${local(closure.start)} – ${local(closure.end)}` : ""}${why}`;
    }
    case "BOOKED":
      return reason.elsewhere
        ? `booked in another of the provider's clinics ${span(reason.interval)}`
        : `booked ${span(reason.interval)}`;
    case "EXTERNAL_BUSY":
      return "busy in the provider's own calendar";
    case "CALENDAR_STALE":
      return "the provider's calendar could not be read for too long: no slots until it syncs again";
    case "RESOURCE_UNAVAILABLE":
      return `no ${reason.kind ?? "resource"} is free for the appointment's time (with its buffers)`;
    case "DAILY_LIMIT": {
      const count = reason.limit?.count ?? 0;
      return `the provider already has ${String(count)} appointment${count === 1 ? "" : "s"} on ${date}, their daily limit of ${String(reason.limit?.max ?? count)}`;
    }
    case "BUFFER":
      return `too close to the appointment ${span(reason.interval)} (this service needs ${String(service.bufferBeforeMin)} minutes before and ${String(service.bufferAfterMin)} after, that appointment keeps its own)`;
  }
}

/**
 * Every rule that removes the slot of the service starting at `start`, for every candidate
 * provider (approved or not), computed by the slot engine on the same data as availability: a
 * provider is bookable here exactly when availability lists that start for them.
 */
export async function explainAvailability(db: Db, query: ExplainQuery): Promise<ExplanationView> {
  const date = localDateOf(query.start.getTime(), query.timeZone);
  // The one read every booking makes (clinic_schedule_context): the same schedule, the time a
  // shared provider has taken in other clinics, the resources the service needs.
  const context = await readScheduleContext(db, {
    clinicId: query.clinicId,
    timeZone: query.timeZone,
    fromDate: date,
    toDate: date,
    from: new Date(query.start.getTime() - 28 * HOUR),
    to: new Date(query.start.getTime() + 52 * HOUR),
    serviceId: query.serviceId,
    providerId: query.providerId,
    now: query.now,
  });
  if (context === "rate limited") throw new Error("an explanation counts no rate limit");
  const { service, candidates } = context;
  if (!service.isActive) throw new DomainError("SERVICE_INACTIVE", "the service is inactive and cannot be booked");
  assertCandidate(service, query.providerId, candidates);
  const explanation = explainStart({ ...context.schedule, nowMs: query.now.getTime() }, query.start.getTime());
  const byId = new Map(candidates.map((c) => [c.userId, c]));
  const providers = explanation.providers.map((p) => {
    const candidate = byId.get(p.providerId);
    return {
      provider_id: p.providerId,
      provider_name: candidate?.fullName ?? "",
      bookable: p.reasons.length === 0,
      reasons: p.reasons.map((r) => ({
        code: r.code,
        detail: reasonDetail(r, service, query.timeZone, explanation.date, candidate?.status ?? "", query.now),
        ...(query.showAppointments && r.bookingId ? { appointment_id: r.bookingId } : {}),
      })),
    };
  });
  return {
    start: new Date(explanation.start),
    end: new Date(explanation.end),
    bookable: providers.some((p) => p.bookable),
    providers,
  };
}
