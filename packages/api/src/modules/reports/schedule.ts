// The available time of a report (CONTRACT §20, docs/reports.md#available-minutes): the schedule
// read in one round trip (clinic_report_schedule), turned into the slot engine's query by
// availability's buildSchedule, and the engine's open time (openTime in domain/slots.ts). The rules
// are the engine's; nothing here decides what is open.
import { z } from "zod";
import { type Db, callClinicJsonFunction, memberStatuses } from "@clinic/db";
import { openTime } from "../../domain/slots.ts";
import { type ServiceInfo, buildSchedule, scheduleRowSchemas, workingTimeOf } from "../availability/index.ts";

const isoInstant = z.string().transform((text) => new Date(text));

const answerSchema = z.object({
  providers: z.array(
    z.object({ user_id: z.string(), full_name: z.string(), status: z.enum(memberStatuses), is_provider: z.boolean() }),
  ),
  services: z.array(
    z.object({ id: z.string(), name: z.string(), provider_id: z.string().nullable(), deleted: z.boolean() }),
  ),
  ...scheduleRowSchemas,
  external: z.array(z.object({ provider_id: z.string(), starts_at: isoInstant, ends_at: isoInstant })),
  elsewhere: z.array(z.object({ provider_id: z.string(), starts_at: isoInstant, ends_at: isoInstant })),
});

/** A provider of the clinic as a report sees them. */
export interface ReportProvider {
  id: string;
  name: string;
  /** Approved and a provider now: only they have available time (§6 rule 1). */
  available: boolean;
}

/** A service of the clinic as a report sees it. */
export interface ReportService {
  id: string;
  name: string;
  /** The assigned provider, or null: every provider of the clinic may deliver it (§6 rule 1). */
  providerId: string | null;
  deleted: boolean;
}

/** The clinic's providers and services, and each provider's open minutes per local date. */
export interface ReportSchedule {
  providers: ReportProvider[];
  services: ReportService[];
  /** provider id → local date → open minutes. */
  openMinutes: Map<string, Map<string, number>>;
}

/**
 * The engine's rules of a service play no part in open time (openTime ignores them); buildSchedule
 * wants a service all the same: this one has no rules at all.
 */
const noService: ServiceInfo = {
  id: "",
  name: "",
  durationMin: 1,
  providerId: null,
  isActive: true,
  bufferBeforeMin: 0,
  bufferAfterMin: 0,
  slotStepMin: null,
  minNoticeMin: 0,
  bookingHorizonDays: null,
  capacity: 1,
  requiredResourceKinds: [],
  questions: [],
};

const MINUTE = 60_000;

/**
 * Reads the clinic's schedule for the local dates [fromDate, toDate] (instants [from, to)) and
 * computes every provider's open minutes per date. `providerId` names a provider who is to be
 * read even when they are no provider any more.
 */
export async function readReportSchedule(
  db: Db,
  request: {
    clinicId: string;
    timeZone: string;
    fromDate: string;
    toDate: string;
    from: Date;
    to: Date;
    providerId?: string | undefined;
  },
): Promise<ReportSchedule> {
  const answer = answerSchema.parse(
    await callClinicJsonFunction(db, "clinic_report_schedule", request.clinicId, {
      from: request.from.toISOString(),
      to: request.to.toISOString(),
      date: request.fromDate,
      date_to: request.toDate,
      provider_id: request.providerId ?? null,
    }),
  );
  // Providers who are none now (the flag taken away) are read for their name only: no hours count.
  const candidates = answer.providers.map((p) => ({
    userId: p.user_id,
    status: p.is_provider ? p.status : ("suspended" as const),
  }));
  const query = buildSchedule(
    { clinicId: request.clinicId, timeZone: request.timeZone, fromDate: request.fromDate, toDate: request.toDate },
    noService,
    candidates,
    {
      ...workingTimeOf(answer),
      // The clinic's own appointments are what a report measures, never what makes time unavailable.
      bookings: [],
      elsewhere: answer.elsewhere.map((e) => ({ providerId: e.provider_id, startsAt: e.starts_at, endsAt: e.ends_at })),
      external: answer.external.map((e) => ({
        providerId: e.provider_id,
        startsAt: e.starts_at,
        endsAt: e.ends_at,
        stale: false,
      })),
    },
  );
  const openMinutes = new Map<string, Map<string, number>>();
  for (const open of openTime(query)) {
    let byDate = openMinutes.get(open.providerId);
    if (!byDate) {
      byDate = new Map();
      openMinutes.set(open.providerId, byDate);
    }
    let ms = 0;
    for (const interval of open.intervals) ms += interval.end - interval.start;
    byDate.set(open.date, (byDate.get(open.date) ?? 0) + ms / MINUTE);
  }
  return {
    providers: answer.providers.map((p) => ({
      id: p.user_id,
      name: p.full_name,
      available: p.is_provider && p.status === "approved",
    })),
    services: answer.services.map((s) => ({ id: s.id, name: s.name, providerId: s.provider_id, deleted: s.deleted })),
    openMinutes,
  };
}
