// Waitlist entries (CONTRACT §15 WL1–WL4, docs/waitlist.md): the one view, creation with its
// validation, the lists and the patient's own cancel.
import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { type Db, type WaitlistStatus, appointments, clinicMembers, users, waitlistEntries } from "@clinic/db";
import { addDays, daysBetween, localDateOf } from "../../domain/timezone.ts";
import { DomainError, notFound, validationFailed } from "../../errors.ts";
import { keyset } from "../../pagination.ts";
import { instantOutput } from "../../schemas/wire.ts";
import { candidatesOf, invalidateAvailability, loadService } from "../availability/index.ts";
import { syncProviderBusy } from "../booking/index.ts";

/** The farthest a waitlist entry may reach: its service's horizon, and never more than this many days. */
export const maxWaitlistDays = 366;

/** A waitlist entry as every route answers it (§15). */
export const waitlistEntryOutput = z.object({
  id: z.string(),
  clinic_id: z.string(),
  service_id: z.string(),
  provider_id: z.string().nullable(),
  from_date: z.string(),
  to_date: z.string(),
  weekdays: z.array(z.number().int()),
  earliest: z.string().nullable(),
  latest: z.string().nullable(),
  patient: z.object({ name: z.string(), email: z.string().nullable(), phone_e164: z.string().nullable() }),
  status: z.enum(["waiting", "offered", "booked", "expired", "canceled"]),
  offer: z.object({ appointment_id: z.string(), expires_at: instantOutput }).nullable(),
  created_at: instantOutput,
});
export type WaitlistEntryView = z.infer<typeof waitlistEntryOutput>;

type EntryRow = typeof waitlistEntries.$inferSelect;

/** "09:00:00" (the column) → "09:00" (the wire). */
const hhmm = (time: string | null) => (time === null ? null : time.slice(0, 5));

export function toWaitlistEntry(row: EntryRow): WaitlistEntryView {
  return {
    id: row.id,
    clinic_id: row.clinicId,
    service_id: row.serviceId,
    provider_id: row.providerId,
    from_date: row.fromDate,
    to_date: row.toDate,
    weekdays: [...row.weekdays].sort((a, b) => a - b),
    earliest: hhmm(row.earliest),
    latest: hhmm(row.latest),
    patient: { name: row.patientName, email: row.patientEmail, phone_e164: row.patientPhoneE164 },
    status: row.status,
    offer:
      row.status === "offered" && row.offerAppointmentId !== null && row.offerExpiresAt !== null
        ? { appointment_id: row.offerAppointmentId, expires_at: row.offerExpiresAt }
        : null,
    created_at: row.createdAt,
  };
}

/** What a new entry asks for (minutes of the day for the window). */
export interface WaitlistWish {
  serviceId: string;
  providerId?: string | undefined;
  fromDate: string;
  toDate: string;
  weekdays?: readonly number[] | undefined;
  /** Minute of the clinic-local day. */
  earliest?: number | undefined;
  latest?: number | undefined;
}

export interface NewWaitlistEntry extends WaitlistWish {
  clinicId: string;
  timeZone: string;
  patient: { name: string; email: string | null; phone_e164: string | null };
  patientUserId: string | null;
  createdByUserId: string;
}

const timeOfMinute = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}:00`;

/**
 * Adds an entry after checking, in this order, the dates (from_date not before the clinic's
 * today, to_date not before from_date nor past the service's horizon or 366 days), the window
 * (latest after earliest), then the service (404) and provider (404 when not a member, 422
 * NOT_A_PROVIDER when not one who may deliver it). Nothing is written on a refusal.
 */
export async function createWaitlistEntry(db: Db, entry: NewWaitlistEntry, now: Date): Promise<WaitlistEntryView> {
  const today = localDateOf(now.getTime(), entry.timeZone);
  if (entry.fromDate < today) throw validationFailed("from_date", `must not be before today (${today}, clinic time)`);
  if (entry.toDate < entry.fromDate) throw validationFailed("to_date", "must not be before from_date");
  if (entry.earliest !== undefined && entry.latest !== undefined && entry.latest <= entry.earliest)
    throw validationFailed("latest", "must be after earliest");
  const service = await loadService(db, entry.clinicId, entry.serviceId);
  const reach = Math.min(service.bookingHorizonDays ?? maxWaitlistDays, maxWaitlistDays);
  if (daysBetween(today, entry.toDate) > reach)
    throw validationFailed("to_date", `must be at most ${reach} days after today (${addDays(today, reach)})`);
  if (entry.providerId !== undefined) {
    const [member] = await db
      .select({ userId: clinicMembers.userId })
      .from(clinicMembers)
      .where(and(eq(clinicMembers.clinicId, entry.clinicId), eq(clinicMembers.userId, entry.providerId)));
    if (!member) throw notFound("provider");
    await candidatesOf(db, entry.clinicId, service, entry.providerId);
  }
  const [row] = await db
    .insert(waitlistEntries)
    .values({
      clinicId: entry.clinicId,
      serviceId: service.id,
      providerId: entry.providerId ?? null,
      fromDate: entry.fromDate,
      toDate: entry.toDate,
      ...(entry.weekdays ? { weekdays: [...new Set(entry.weekdays)].sort((a, b) => a - b) } : {}),
      earliest: entry.earliest === undefined ? null : timeOfMinute(entry.earliest),
      latest: entry.latest === undefined ? null : timeOfMinute(entry.latest),
      patientUserId: entry.patientUserId,
      patientName: entry.patient.name,
      patientEmail: entry.patient.email,
      patientPhoneE164: entry.patient.phone_e164,
      createdByUserId: entry.createdByUserId,
    })
    .returning();
  if (!row) throw new Error("insert returned no waitlist entry");
  return toWaitlistEntry(row);
}

/**
 * The patient of a staff entry (WL4): a registered user (404 when unknown; e-mail and phone are
 * theirs unless given), or a name with an e-mail (400 without one: an offer must reach someone).
 */
export async function staffEntryPatient(
  db: Db,
  patientUserId: string | undefined,
  given: { name: string; email?: string | undefined; phone_e164?: string | undefined } | undefined,
): Promise<NewWaitlistEntry["patient"]> {
  if (patientUserId !== undefined) {
    const [user] = await db
      .select({ email: users.email, phone: users.phoneE164 })
      .from(users)
      .where(eq(users.id, patientUserId));
    if (!user) throw notFound("patient user");
    const email = given?.email ?? user.email;
    return {
      name: given?.name ?? email?.slice(0, 200) ?? "Patient",
      email,
      phone_e164: given?.phone_e164 ?? user.phone,
    };
  }
  if (given?.email === undefined)
    throw validationFailed("patient", "give patient_user_id, or patient with name and email");
  return { name: given.name, email: given.email, phone_e164: given.phone_e164 ?? null };
}

const byCreated = keyset<EntryRow>(
  "asc",
  { column: waitlistEntries.createdAt, kind: "instant", of: (r) => r.createdAt },
  { column: waitlistEntries.id, kind: "uuid", of: (r) => r.id },
);

export interface WaitlistQuery {
  serviceId?: string | undefined;
  status?: readonly WaitlistStatus[] | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** The clinic's entries by created_at (WL3), filtered by service and status. */
export async function listWaitlist(
  db: Db,
  clinicId: string,
  query: WaitlistQuery,
): Promise<{ entries: WaitlistEntryView[]; next_cursor: string | null }> {
  const rows = await db
    .select()
    .from(waitlistEntries)
    .where(
      and(
        eq(waitlistEntries.clinicId, clinicId),
        query.serviceId ? eq(waitlistEntries.serviceId, query.serviceId) : undefined,
        query.status ? inArray(waitlistEntries.status, [...query.status]) : undefined,
        byCreated.after(query.cursor),
      ),
    )
    .orderBy(...byCreated.orderBy)
    .limit(query.limit + 1);
  const { items, next_cursor } = byCreated.page(rows, query.limit);
  return { entries: items.map(toWaitlistEntry), next_cursor };
}

/** The caller's own entries in every clinic by created_at (WL2). */
export async function listMyWaitlist(
  db: Db,
  userId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ entries: WaitlistEntryView[]; next_cursor: string | null }> {
  const rows = await db
    .select()
    .from(waitlistEntries)
    .where(and(eq(waitlistEntries.patientUserId, userId), byCreated.after(page.cursor)))
    .orderBy(...byCreated.orderBy)
    .limit(page.limit + 1);
  const { items, next_cursor } = byCreated.page(rows, page.limit);
  return { entries: items.map(toWaitlistEntry), next_cursor };
}

/**
 * The patient leaves the waitlist (WL2 DELETE): a waiting entry becomes canceled; an offered one
 * too, and its offer's hold is released in the same transaction. 404 when the entry is not the
 * caller's; an entry already canceled or expired stays as it is; a booked one is 409
 * INVALID_TRANSITION (its appointment is canceled instead).
 */
export async function cancelMyWaitlistEntry(db: Db, userId: string, id: string): Promise<void> {
  // Which clinic it is in (a read over every clinic, as U2's), then the work in that clinic alone.
  const [found] = await db
    .select({ clinicId: waitlistEntries.clinicId, offer: waitlistEntries.offerAppointmentId })
    .from(waitlistEntries)
    .where(and(eq(waitlistEntries.id, id), eq(waitlistEntries.patientUserId, userId)));
  if (!found) throw notFound("waitlist entry");
  const clinicId = found.clinicId;
  await db.transaction(async (tx) => {
    // The offer's hold first, then the entry: the order of every other writer of both (an accept,
    // a decline, the matcher), so that they wait for each other instead of deadlocking.
    if (found.offer !== null)
      await tx
        .select({ id: appointments.id })
        .from(appointments)
        .where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, found.offer)))
        .for("update");
    const [entry] = await tx
      .select({
        clinicId: waitlistEntries.clinicId,
        status: waitlistEntries.status,
        offer: waitlistEntries.offerAppointmentId,
      })
      .from(waitlistEntries)
      .where(
        and(
          eq(waitlistEntries.clinicId, clinicId),
          eq(waitlistEntries.id, id),
          eq(waitlistEntries.patientUserId, userId),
        ),
      )
      .for("update");
    if (!entry) throw notFound("waitlist entry");
    if (entry.status === "canceled" || entry.status === "expired") return;
    if (entry.status === "booked")
      throw new DomainError("INVALID_TRANSITION", "the entry was booked: cancel the appointment instead", {
        extra: { current_status: entry.status },
      });
    await tx
      .update(waitlistEntries)
      .set({ status: "canceled", offerAppointmentId: null, offerExpiresAt: null })
      .where(and(eq(waitlistEntries.clinicId, entry.clinicId), eq(waitlistEntries.id, id)));
    if (entry.status === "offered" && entry.offer !== null) await releaseOfferHold(tx, entry.clinicId, entry.offer);
  });
}

/** Deletes an offer's hold (if still held) and invalidates its provider's availability. */
export async function releaseOfferHold(db: Db, clinicId: string, appointmentId: string): Promise<void> {
  const [released] = await db
    .delete(appointments)
    .where(
      and(eq(appointments.clinicId, clinicId), eq(appointments.id, appointmentId), eq(appointments.status, "held")),
    )
    .returning({ providerId: appointments.providerId });
  if (released) {
    await syncProviderBusy(db, clinicId, appointmentId, [released.providerId], new Date());
    await invalidateAvailability(db, clinicId, [released.providerId], { schedule: false });
  }
}
