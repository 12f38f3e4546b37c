// The read leaves out what the caller already knows (drizzle/0015_schedule_known.sql): the
// candidates and weekly hours of a service, kept per process with the schedule versions and the
// candidate list they were read at. Every change of them must make the read answer them again.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { callClinicJsonFunction } from "@clinic/db";
import { knownScheduleStats, readScheduleContext } from "../src/modules/availability/index.ts";
import { addService, bookableClinic, callerFor, codeOf, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
const patient = { name: "Pat Patient" };

interface ReadAnswer {
  known: boolean;
  candidates: { user_id: string; full_name: string; status: string }[] | null;
  hours: unknown[] | null;
  schedule: Record<string, number>;
}

async function read(clinicId: string, serviceId: string, known: ReadAnswer | null): Promise<ReadAnswer> {
  const p = {
    service_id: serviceId,
    date: "2027-03-15",
    date_to: "2027-03-15",
    from: "2027-03-14T00:00:00.000Z",
    to: "2027-03-17T00:00:00.000Z",
    known:
      known === null ? null : { schedule: known.schedule, candidates: (known.candidates ?? []).map((c) => c.user_id) },
  };
  return (await callClinicJsonFunction(t.db, "clinic_schedule_context", clinicId, p)) as ReadAnswer;
}

describe("the schedule read's known part", () => {
  it("is left out while the versions and candidates are the caller's, and answered again after every kind of change", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId);
    let full = await read(c.clinicId, service, null);
    expect(full.known).toBe(false);
    expect(full.candidates?.map((m) => m.user_id)).toEqual([c.provider.id]);
    expect(full.hours).toHaveLength(10);
    const compact = await read(c.clinicId, service, full);
    expect([compact.known, compact.candidates, compact.hours]).toEqual([true, null, null]);

    const changes: [string, () => Promise<unknown>][] = [
      [
        "a provider's hour",
        () =>
          c.asAdmin.workHours.createProvider({
            clinic_id: c.clinicId,
            provider_id: c.provider.id,
            weekday: 6,
            opens_at: "08:00",
            closes_at: "12:00",
          }),
      ],
      [
        "a clinic hour",
        () =>
          c.asAdmin.workHours.createClinic({
            clinic_id: c.clinicId,
            weekday: 6,
            opens_at: "08:00",
            closes_at: "12:00",
          }),
      ],
      [
        "a provider's name",
        () => c.asAdmin.members.update({ clinic_id: c.clinicId, user_id: c.provider.id, full_name: "Anna Renamed" }),
      ],
      ["a provider's status", () => c.asAdmin.providers.suspend({ clinic_id: c.clinicId, user_id: c.provider.id })],
      [
        "a new provider",
        () =>
          c.asAdmin.members.add({
            clinic_id: c.clinicId,
            email: "second.provider@example.com",
            full_name: "Second Provider",
            clinic_role: "STAFF",
            is_provider: true,
          }),
      ],
      ["the service", () => c.asAdmin.services.update({ clinic_id: c.clinicId, id: service, duration_min: 45 })],
    ];
    for (const [what, change] of changes) {
      await change();
      const after = await read(c.clinicId, service, full);
      expect([what, after.known]).toEqual([what, false]);
      expect(after.candidates).not.toBeNull();
      expect(after.hours).not.toBeNull();
      full = after;
      expect((await read(c.clinicId, service, full)).known).toBe(true);
    }
    expect(full.candidates).toHaveLength(2);
    expect(full.candidates?.find((m) => m.user_id === c.provider.id)).toMatchObject({
      full_name: "Anna Renamed",
      status: "suspended",
    });
    expect(full.hours).toHaveLength(12);
  });

  it("keeps a service's read per process, by its estimated size, but not one without a candidate", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId);
    const readFor = (providerId: string) =>
      readScheduleContext(t.db, {
        clinicId: c.clinicId,
        timeZone: "Europe/Berlin",
        fromDate: "2027-03-15",
        toDate: "2027-03-15",
        from: new Date("2027-03-14T00:00:00Z"),
        to: new Date("2027-03-17T00:00:00Z"),
        serviceId: service,
        providerId,
      });
    const before = knownScheduleStats();
    // A provider_id that is nobody's: nothing to keep (random ids must not push out useful entries).
    await readFor(randomUUID());
    expect(knownScheduleStats()).toEqual(before);
    await readFor(c.provider.id);
    const after = knownScheduleStats();
    expect(after.entries).toBe(before.entries + 1);
    expect(after.bytes).toBeGreaterThan(before.bytes + 256);
  });

  it("never lets a process book on hours or a provider status it read before they changed", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    const caller = callerFor(t.db, c.custom, { now: pinnedNow });
    const book = (start: string) =>
      caller.appointments.book({ clinic_id: c.clinicId, service_id: service, start: new Date(start), patient });
    // Read (and kept) with the weekday hours only: Saturday is closed.
    expect((await book("2027-03-15T10:00:00Z")).status).toBe("booked");
    expect(await codeOf(book("2027-03-20T10:00:00Z"))).toBe("SLOT_UNAVAILABLE");
    await c.asAdmin.workHours.createClinic({
      clinic_id: c.clinicId,
      weekday: 6,
      opens_at: "08:00",
      closes_at: "16:00",
    });
    await c.asAdmin.workHours.createProvider({
      clinic_id: c.clinicId,
      provider_id: c.provider.id,
      weekday: 6,
      opens_at: "08:00",
      closes_at: "16:00",
    });
    expect((await book("2027-03-20T10:00:00Z")).status).toBe("booked");
    // A suspended provider is not booked, though the process kept them as approved.
    await c.asAdmin.providers.suspend({ clinic_id: c.clinicId, user_id: c.provider.id });
    expect(await codeOf(book("2027-03-15T11:00:00Z"))).not.toBeUndefined();
    await c.asAdmin.providers.reactivate({ clinic_id: c.clinicId, user_id: c.provider.id });
    expect((await book("2027-03-15T11:00:00Z")).status).toBe("booked");
  });
});
