// The waitlist matcher (CONTRACT §15, docs/waitlist.md#the-matcher): ends entries whose dates have
// passed, takes back offers that were not taken, and offers free slots to waiting entries, oldest
// first, as holds booked through the booking path. Every decision that could race is the
// database's: the exclusion constraint gives a slot to one hold, the conditional update in
// clinic_book_appointment gives an entry one offer; the losers' errors mean "move on".
import { and, asc, eq, inArray, lt, sql } from "drizzle-orm";
import { type Db, appointments, clinics, events, rowsOf, waitlistEntries } from "@clinic/db";
import { formatLocal, isoWeekday, localDateOf } from "../../domain/timezone.ts";
import { DomainError } from "../../errors.ts";
import type { AvailabilityCache } from "../availability/index.ts";
import { bookAppointment } from "../booking/index.ts";
import { releaseOfferHold } from "./entries.ts";
import { type FreeSlot, searchFreeSlots } from "./nextFree.ts";

/** What one run over a clinic did. */
export interface MatchOutcome {
  expired: number;
  /** Offers taken back (expired, released or canceled holds): their entries wait again. */
  returned: number;
  /** New offers made. */
  offered: number;
}

/** Errors that mean another process or change got there first: the matcher moves on. */
const slotLost = new Set(["SLOT_UNAVAILABLE", "PATIENT_DOUBLE_BOOKED"]);
const entryLost = new Set(["CONFLICT", "NOT_FOUND", "SERVICE_INACTIVE", "NOT_A_PROVIDER", "VALIDATION_FAILED"]);
/** Fitting slots one entry tries in one run before it waits for the next. */
const attemptsPerEntry = 5;
/** The most slots one availability chunk of the matcher may hold. */
const matcherMaxSlots = 10_000;

const minuteOf = (local: string) => Number(local.slice(11, 13)) * 60 + Number(local.slice(14, 16));
const minuteOfTime = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

type EntryRow = typeof waitlistEntries.$inferSelect;

/**
 * Whether a free slot fits an entry: its local date in the range and on one of the weekdays, the
 * appointment inside the window (start ≥ earliest, end ≤ latest, clinic-local), the entry's
 * provider free for it, and not a start the entry already passed on.
 */
export function slotFits(entry: EntryRow, slot: FreeSlot, timeZone: string): boolean {
  const date = slot.start_local.slice(0, 10);
  if (date < entry.fromDate || date > entry.toDate) return false;
  if (!entry.weekdays.includes(isoWeekday(date))) return false;
  if (entry.earliest !== null && minuteOf(slot.start_local) < minuteOfTime(entry.earliest)) return false;
  if (entry.latest !== null) {
    const end = formatLocal(slot.end.getTime(), timeZone);
    // An appointment that ends at or after midnight ends at 24:00 of its day for the window.
    if ((end.slice(0, 10) === date ? minuteOf(end) : 24 * 60) > minuteOfTime(entry.latest)) return false;
  }
  if (entry.providerId !== null && !slot.provider_ids.includes(entry.providerId)) return false;
  return !entry.passed.includes(slot.start.toISOString());
}

/**
 * One run of the matcher over a clinic at `now`: (a) waiting entries whose to_date is before the
 * clinic's today expire; (b) offered entries whose hold ended unbooked (expired, released,
 * canceled) wait again, with the offered start added to `passed`; (c) each waiting entry, oldest
 * first, is offered the first free slot that fits it, as a hold of the clinic's offer_minutes.
 */
export async function matchWaitlist(
  db: Db,
  cache: AvailabilityCache,
  clinicId: string,
  now: Date,
): Promise<MatchOutcome> {
  const [clinic] = await db
    .select({ id: clinics.id, timezone: clinics.timezone, offerMinutes: clinics.offerMinutes })
    .from(clinics)
    .where(eq(clinics.id, clinicId));
  if (!clinic) return { expired: 0, returned: 0, offered: 0 };
  const today = localDateOf(now.getTime(), clinic.timezone);
  const expired = await db
    .update(waitlistEntries)
    .set({ status: "expired" })
    .where(
      and(
        eq(waitlistEntries.clinicId, clinicId),
        eq(waitlistEntries.status, "waiting"),
        lt(waitlistEntries.toDate, today),
      ),
    )
    .returning({ id: waitlistEntries.id });
  const returned = await returnLapsedOffers(db, clinicId, now);
  let offered = 0;
  const waiting = await db
    .select()
    .from(waitlistEntries)
    .where(and(eq(waitlistEntries.clinicId, clinicId), eq(waitlistEntries.status, "waiting")))
    .orderBy(asc(waitlistEntries.createdAt), asc(waitlistEntries.id));
  // The older entries this run found nothing for, oldest first: a slot freed while the run went
  // on (a cancellation committed between their search and a younger entry's) is theirs first.
  const passedOver: EntryRow[] = [];
  for (const entry of waiting) {
    const made = await offerOne(
      db,
      cache,
      { id: clinic.id, timezone: clinic.timezone, offerMinutes: clinic.offerMinutes },
      entry,
      now,
      passedOver,
    );
    offered += made.offers;
    if (!made.served) passedOver.push(entry);
  }
  return { expired: expired.length, returned, offered };
}

/**
 * Offers the first fitting free slot to one entry; false when none fits or another process got
 * there first. When every slot it tried was just taken (other processes offering at the same
 * time), it looks once more with fresh availability before leaving the entry for the next run, so
 * that a younger entry does not get a slot an older one still fits.
 */
async function offerOne(
  db: Db,
  cache: AvailabilityCache,
  clinic: { id: string; timezone: string; offerMinutes: number },
  entry: EntryRow,
  now: Date,
  passedOver: EntryRow[],
): Promise<{ served: boolean; offers: number }> {
  let offers = 0;
  for (let look = 0; look < 2; look++) {
    const fitting = await fittingSlots(db, cache, clinic, entry, now);
    if (fitting === null) return { served: false, offers };
    for (const slot of fitting) {
      // An older entry passed over earlier in this run that this slot fits gets it first.
      if (await offerToOlder(db, clinic, passedOver, entry, slot, now)) {
        offers++;
        continue;
      }
      const outcome = await tryOffer(db, clinic, entry, slot, now);
      if (outcome === "offered") return { served: true, offers: offers + 1 };
      if (outcome === "entry lost") return { served: false, offers };
    }
    if (fitting.length < attemptsPerEntry) return { served: false, offers };
  }
  return { served: false, offers };
}

/**
 * Offers a slot found for a younger entry to the oldest entry passed over earlier in the run that
 * it fits (same service), and takes that entry off the list once it has an offer or is lost; true
 * when the slot went to one of them. Without it, a slot freed while the run went on went to the
 * younger entry, and the oldest entry waited for the next one (docs/waitlist.md#the-matcher).
 */
async function offerToOlder(
  db: Db,
  clinic: { id: string; timezone: string; offerMinutes: number },
  passedOver: EntryRow[],
  entry: EntryRow,
  slot: FreeSlot,
  now: Date,
): Promise<boolean> {
  for (const older of [...passedOver]) {
    if (older.serviceId !== entry.serviceId || !slotFits(older, slot, clinic.timezone)) continue;
    const outcome = await tryOffer(db, clinic, older, slot, now);
    if (outcome === "slot lost") return false;
    passedOver.splice(passedOver.indexOf(older), 1);
    if (outcome === "offered") return true;
  }
  return false;
}

/** The first free slots that fit the entry (at most `attemptsPerEntry`); null when its service or provider can no longer be asked about. */
async function fittingSlots(
  db: Db,
  cache: AvailabilityCache,
  clinic: { id: string; timezone: string },
  entry: EntryRow,
  now: Date,
): Promise<FreeSlot[] | null> {
  const fitting: FreeSlot[] = [];
  try {
    await searchFreeSlots(
      db,
      cache,
      { id: clinic.id, timezone: clinic.timezone },
      {
        serviceId: entry.serviceId,
        providerId: entry.providerId ?? undefined,
        fromDate: entry.fromDate,
        toDate: entry.toDate,
        now,
        maxSlots: matcherMaxSlots,
      },
      (slot) => {
        if (slotFits(entry, slot, clinic.timezone)) fitting.push(slot);
        return fitting.length >= attemptsPerEntry ? "stop" : "next";
      },
    );
  } catch (error) {
    // A service deleted or deactivated, a provider no longer one: the entry waits (and expires).
    if (error instanceof DomainError && entryLost.has(error.domainCode)) return null;
    throw error;
  }
  return fitting;
}

/** One offer of one slot to one entry, as a hold through the booking path. */
async function tryOffer(
  db: Db,
  clinic: { id: string; timezone: string; offerMinutes: number },
  entry: EntryRow,
  slot: FreeSlot,
  now: Date,
): Promise<"offered" | "slot lost" | "entry lost"> {
  try {
    await offerSlot(db, clinic.id, (tx) =>
      bookAppointment(
        tx,
        {
          clinicId: clinic.id,
          timeZone: clinic.timezone,
          userId: null,
          serviceId: entry.serviceId,
          start: slot.start,
          providerId: entry.providerId ?? undefined,
          patient: {
            name: entry.patientName,
            email: entry.patientEmail ?? undefined,
            phone_e164: entry.patientPhoneE164 ?? undefined,
          },
          patientUserId: entry.patientUserId ?? undefined,
          kind: "hold",
          waitlistEntryId: entry.id,
          holdMinutes: clinic.offerMinutes,
        },
        now,
      ),
    );
    return "offered";
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (slotLost.has(error.domainCode)) return "slot lost";
    if (entryLost.has(error.domainCode)) return "entry lost";
    throw error;
  }
}

/**
 * One offer's write, in a short transaction that first takes the clinic's waitlist lock, so that
 * the matchers of several processes make their offers in a clinic one at a time. Without it, two
 * matchers inserting holds for the same slot at the same moment each wait for the other's row in
 * the exclusion constraint: PostgreSQL resolves that deadlock only after `deadlock_timeout`, and
 * six matchers racing over a few slots spent most of their time there. The exclusion constraint
 * and the conditional update of the entry still decide who gets what; the lock only spares the
 * waiting. It is held for the one booking statement (a few milliseconds).
 */
async function offerSlot<T>(db: Db, clinicId: string, write: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`waitlist-offer:${clinicId}`}, 0))`);
    return write(tx);
  });
}

/**
 * Offers whose hold no longer stands unbooked at `now` (expired, released, canceled) go back to
 * waiting, the offered start added to `passed`. The update is conditional on the entry still
 * holding that offer, so two processes return it once.
 */
async function returnLapsedOffers(db: Db, clinicId: string, now: Date): Promise<number> {
  const offers = await db
    .select({
      id: waitlistEntries.id,
      appointmentId: waitlistEntries.offerAppointmentId,
      status: appointments.status,
      heldUntil: appointments.heldUntil,
      start: appointments.startsAt,
    })
    .from(waitlistEntries)
    .leftJoin(
      appointments,
      and(eq(appointments.clinicId, waitlistEntries.clinicId), eq(appointments.id, waitlistEntries.offerAppointmentId)),
    )
    .where(and(eq(waitlistEntries.clinicId, clinicId), eq(waitlistEntries.status, "offered")));
  let returned = 0;
  for (const offer of offers) {
    const appointmentId = offer.appointmentId;
    if (appointmentId === null || !lapsed(offer, now)) continue;
    // Under the hold's row lock, which the accept (booking the hold) takes too: an offer accepted
    // first is booked and stays so; one that lapsed goes back, once, and its hold is gone, so an
    // accept whose clock still saw it unexpired finds no hold (404) instead of booking a time
    // whose entry already waits again.
    const done = await db.transaction(async (tx) => {
      const [hold] = await tx
        .select({ status: appointments.status, heldUntil: appointments.heldUntil, start: appointments.startsAt })
        .from(appointments)
        .where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, appointmentId)))
        .for("update");
      if (hold && !lapsed(hold, now)) return false;
      // The lapsed hold goes with it, so that no accept can book it after this (an expired hold
      // occupies nothing: availability does not change, no version is bumped).
      if (hold?.status === "held")
        await tx
          .delete(appointments)
          .where(
            and(
              eq(appointments.clinicId, clinicId),
              eq(appointments.id, appointmentId),
              eq(appointments.status, "held"),
            ),
          );
      const start = hold?.start ?? (await offeredStart(tx, clinicId, offer.id, appointmentId));
      return returnOffer(tx, clinicId, offer.id, appointmentId, start);
    });
    if (done) returned++;
  }
  return returned;
}

/** An offer's hold that no longer stands unbooked: released (no row), canceled, or held past its time. */
function lapsed(hold: { status: string | null; heldUntil: Date | null }, now: Date): boolean {
  if (hold.status === null || hold.status === "canceled") return true;
  return hold.status === "held" && (hold.heldUntil === null || hold.heldUntil.getTime() <= now.getTime());
}

/** The start a released (deleted) offer had, from its `waitlist.offered` event. */
async function offeredStart(db: Db, clinicId: string, entryId: string, appointmentId: string): Promise<Date | null> {
  const [row] = rowsOf<{ start: string | null }>(
    await db.execute(sql`
      select ${events.data}->'appointment'->>'start' as start from ${events}
      where ${events.clinicId} = ${clinicId} and ${events.type} = 'waitlist.offered'
        and ${events.data}->>'entry_id' = ${entryId} and ${events.data}->'appointment'->>'id' = ${appointmentId}
      limit 1`),
  );
  return row?.start ? new Date(row.start) : null;
}

/** The entry waits again, unless another process already moved it on; true when this call did. */
async function returnOffer(
  db: Db,
  clinicId: string,
  entryId: string,
  appointmentId: string,
  start: Date | null,
): Promise<boolean> {
  const passed = start === null ? sql`'[]'::jsonb` : sql`jsonb_build_array(${start.toISOString()}::text)`;
  const rows = await db
    .update(waitlistEntries)
    .set({
      status: "waiting",
      offerAppointmentId: null,
      offerExpiresAt: null,
      passed: sql`${waitlistEntries.passed} || ${passed}`,
    })
    .where(
      and(
        eq(waitlistEntries.clinicId, clinicId),
        eq(waitlistEntries.id, entryId),
        eq(waitlistEntries.status, "offered"),
        eq(waitlistEntries.offerAppointmentId, appointmentId),
      ),
    )
    .returning({ id: waitlistEntries.id });
  return rows.length > 0;
}

/**
 * L5: the patient declines a waitlist offer. In one transaction the entry waits again with the
 * offered start in `passed` and the hold is released, so the next run of the matcher offers the
 * slot to the next entry in line. 409 CONFLICT when the appointment is not a live offer (booked,
 * released, expired or never one).
 */
export async function declineOffer(db: Db, clinicId: string, appointmentId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [hold] = await tx
      .select({ start: appointments.startsAt, status: appointments.status, heldUntil: appointments.heldUntil })
      .from(appointments)
      .where(and(eq(appointments.clinicId, clinicId), eq(appointments.id, appointmentId)))
      .for("update");
    const live = hold?.status === "held" && hold.heldUntil !== null && hold.heldUntil.getTime() > now.getTime();
    const [entry] = await tx
      .select({ id: waitlistEntries.id })
      .from(waitlistEntries)
      .where(
        and(
          eq(waitlistEntries.clinicId, clinicId),
          eq(waitlistEntries.offerAppointmentId, appointmentId),
          eq(waitlistEntries.status, "offered"),
        ),
      )
      .for("update");
    if (!hold || !live || !entry)
      throw new DomainError("CONFLICT", "this is not a waitlist offer that can still be declined");
    if (!(await returnOffer(tx, clinicId, entry.id, appointmentId, hold.start)))
      throw new DomainError("CONFLICT", "this is not a waitlist offer that can still be declined");
    await releaseOfferHold(tx, clinicId, appointmentId);
  });
}

/**
 * The live waitlist offer an appointment is, or null: for the manage page's `actions` (L1), which
 * shows "decline" only for an offer that can still be declined.
 */
export async function liveOfferOf(
  db: Db,
  clinicId: string,
  appointmentId: string,
  now: Date,
): Promise<{ entryId: string; expiresAt: Date } | null> {
  const [row] = await db
    .select({ entryId: waitlistEntries.id, expiresAt: waitlistEntries.offerExpiresAt })
    .from(waitlistEntries)
    .innerJoin(
      appointments,
      and(eq(appointments.clinicId, waitlistEntries.clinicId), eq(appointments.id, waitlistEntries.offerAppointmentId)),
    )
    .where(
      and(
        eq(waitlistEntries.clinicId, clinicId),
        eq(waitlistEntries.offerAppointmentId, appointmentId),
        eq(waitlistEntries.status, "offered"),
        eq(appointments.status, "held"),
      ),
    );
  if (!row?.expiresAt || row.expiresAt.getTime() <= now.getTime()) return null;
  return { entryId: row.entryId, expiresAt: row.expiresAt };
}

/** The clinics with entries the matcher has work on (waiting or offered). */
export async function clinicsWithWaitlist(db: Db): Promise<string[]> {
  const rows = await db
    .selectDistinct({ clinicId: waitlistEntries.clinicId })
    .from(waitlistEntries)
    .where(inArray(waitlistEntries.status, ["waiting", "offered"]));
  return rows.map((r) => r.clinicId);
}

/**
 * One sweep: the matcher over every clinic with waiting or offered entries. A clinic's failure
 * is reported through `onError` and does not stop the others.
 */
export async function sweepWaitlists(
  db: Db,
  cache: AvailabilityCache,
  now: Date,
  onError?: (error: Error) => void,
): Promise<MatchOutcome> {
  const total: MatchOutcome = { expired: 0, returned: 0, offered: 0 };
  for (const clinicId of await clinicsWithWaitlist(db)) {
    try {
      const outcome = await matchWaitlist(db, cache, clinicId, now);
      total.expired += outcome.expired;
      total.returned += outcome.returned;
      total.offered += outcome.offered;
    } catch (error) {
      onError?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
  return total;
}
