import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { workHours } from "@clinic/db";
import {
  addHours,
  addMember,
  addService,
  bookableClinic,
  callerFor,
  codeOf,
  pinnedNow,
  rejectionOf,
  useTestDatabase,
} from "../testing/index.ts";

const t = useTestDatabase();
const monday = "2027-03-15";
const at = (iso: string) => new Date(iso);
const patient = { name: "Pat Patient", email: "pat@example.test", phone_e164: "+4915112345678" };

describe("booking", () => {
  it("books an offered slot linked to service and provider; the slot disappears; cancel frees it", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { name: "Massage", durationMin: 60, providerId: c.provider.id });
    const agent = callerFor(t.db, c.custom, { now: pinnedNow });
    const booked = await agent.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T10:00:00+00:00",
      patient,
      notes: "first visit",
    });
    expect(booked).toMatchObject({
      clinic_id: c.clinicId,
      service_id: service,
      service_name: "Massage",
      provider_id: c.provider.id,
      provider_name: "Anna Provider",
      start: at("2027-03-15T10:00:00Z"),
      end: at("2027-03-15T11:00:00Z"),
      status: "booked",
      patient: { name: "Pat Patient", email: "pat@example.test", phone_e164: "+4915112345678" },
      notes: "first visit",
      canceled_at: null,
    });
    const after = await agent.availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: monday,
      to: monday,
    });
    expect(after.slots.map((s) => s.start_local.slice(11))).not.toContain("10:00");
    expect(
      await codeOf(
        agent.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T10:00:00Z"),
          patient,
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");

    const canceled = await agent.appointments.cancel({ clinic_id: c.clinicId, id: booked.id });
    expect(canceled.status).toBe("canceled");
    expect(canceled.canceled_at).toBeInstanceOf(Date);
    const again = await agent.availability.get({
      clinic_id: c.clinicId,
      service_id: service,
      from: monday,
      to: monday,
    });
    expect(again.slots.map((s) => s.start_local.slice(11))).toContain("10:00");
    expect(
      (
        await agent.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T10:00:00Z"),
          patient,
        })
      ).status,
    ).toBe("booked");
  });

  it("refuses off-grid, past, closed and out-of-hours starts with SLOT_UNAVAILABLE", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    const agent = callerFor(t.db, c.custom, { now: () => at("2027-03-15T12:00:00Z") });
    for (const start of [
      "2027-03-15T10:30:00Z",
      "2027-03-15T11:00:00Z",
      "2027-03-15T12:00:00Z",
      "2027-03-20T10:00:00Z",
      "2027-03-16T08:00:00Z",
      "2027-03-16T16:30:00Z",
    ]) {
      expect(
        await codeOf(
          agent.appointments.book({ clinic_id: c.clinicId, service_id: service, start: at(start), patient }),
        ),
      ).toBe("SLOT_UNAVAILABLE");
    }
    expect(
      (
        await agent.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T13:00:00Z"),
          patient,
        })
      ).status,
    ).toBe("booked");
  });

  it("lets a booking of another service block the provider", async () => {
    const c = await bookableClinic(t.db);
    const long = await addService(t.db, c.clinicId, { durationMin: 90, providerId: c.provider.id });
    const short = await addService(t.db, c.clinicId, { durationMin: 30, providerId: c.provider.id });
    const agent = callerFor(t.db, c.custom, { now: pinnedNow });
    await agent.appointments.book({
      clinic_id: c.clinicId,
      service_id: long,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    const slots = await agent.availability.get({ clinic_id: c.clinicId, service_id: short, from: monday, to: monday });
    expect(slots.slots[0]?.start_local).toBe("2027-03-15T10:30");
  });

  it("picks, for an unassigned service, the free provider with the fewest bookings that day, then by name", async () => {
    const c = await bookableClinic(t.db);
    const bert = await addMember(t.db, c.clinicId, { isProvider: true, status: "approved", fullName: "Bert Provider" });
    await addHours(t.db, c.clinicId, bert.id, [1], "09:00", "17:00");
    const service = await addService(t.db, c.clinicId, { durationMin: 60 });
    const agent = callerFor(t.db, c.custom, { now: pinnedNow });
    const first = await agent.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    expect(first.provider_name).toBe("Anna Provider");
    const second = await agent.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T11:00:00Z"),
      patient,
    });
    expect(second.provider_name).toBe("Bert Provider");
    const third = await agent.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    expect(third.provider_name).toBe("Bert Provider");
    expect(
      await codeOf(
        agent.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T09:00:00Z"),
          patient,
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
    const chosen = await agent.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T13:00:00Z"),
      provider_id: c.provider.id,
      patient,
    });
    expect(chosen.provider_id).toBe(c.provider.id);
  });

  it("returns the original appointment for a retried Idempotency-Key and refuses the key with another body", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    const agent = callerFor(t.db, c.custom, { now: pinnedNow });
    const request = {
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T14:00:00Z"),
      patient,
      idempotency_key: "retry-1",
    };
    const first = await agent.appointments.book(request);
    const retry = await agent.appointments.book(request);
    expect(retry.id).toBe(first.id);
    const list = await callerFor(t.db, c.staff).appointments.list({ clinic_id: c.clinicId });
    expect(list.appointments).toHaveLength(1);
    expect(await codeOf(agent.appointments.book({ ...request, start: at("2027-03-15T15:00:00Z") }))).toBe(
      "IDEMPOTENCY_KEY_REUSED",
    );
  });

  it("keeps appointments when the work hours they fall in are deleted, and books no new ones there", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    const agent = callerFor(t.db, c.custom, { now: pinnedNow });
    const booked = await agent.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    await t.db.delete(workHours).where(eq(workHours.clinicId, c.clinicId));
    const read = await callerFor(t.db, c.staff).appointments.get({ clinic_id: c.clinicId, id: booked.id });
    expect(read.status).toBe("booked");
    expect(
      await codeOf(
        agent.appointments.book({
          clinic_id: c.clinicId,
          service_id: service,
          start: at("2027-03-15T10:00:00Z"),
          patient,
        }),
      ),
    ).toBe("SLOT_UNAVAILABLE");
  });

  it("lists appointments by start with filters and pagination; reads need STAFF", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    const agent = callerFor(t.db, c.custom, { now: pinnedNow });
    const ids: string[] = [];
    for (const hour of [13, 9, 11, 15]) {
      ids.push(
        (
          await agent.appointments.book({
            clinic_id: c.clinicId,
            service_id: service,
            start: at(`2027-03-16T${String(hour).padStart(2, "0")}:00:00Z`),
            patient,
          })
        ).id,
      );
    }
    await agent.appointments.cancel({ clinic_id: c.clinicId, id: ids[3] ?? "" });
    const staff = callerFor(t.db, c.staff);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await staff.appointments.list({ clinic_id: c.clinicId, limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.appointments.map((a) => a.start.toISOString().slice(11, 13)));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(["09", "11", "13", "15"]);
    const booked = await staff.appointments.list({
      clinic_id: c.clinicId,
      status: "booked",
      from: at("2027-03-16T10:00:00Z"),
      to: at("2027-03-16T14:00:00Z"),
    });
    expect(booked.appointments.map((a) => a.start.toISOString().slice(11, 13))).toEqual(["11", "13"]);
    expect(await codeOf(agent.appointments.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    const other = await bookableClinic(t.db);
    expect(
      await codeOf(callerFor(t.db, other.staff).appointments.get({ clinic_id: other.clinicId, id: ids[0] ?? "" })),
    ).toBe("NOT_FOUND");
    expect(
      await codeOf(callerFor(t.db, other.custom).appointments.cancel({ clinic_id: other.clinicId, id: ids[0] ?? "" })),
    ).toBe("NOT_FOUND");
  });

  it("refuses booking an inactive service and names the problem", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id, isActive: false });
    const error = await rejectionOf(
      callerFor(t.db, c.custom, { now: pinnedNow }).appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: at("2027-03-15T09:00:00Z"),
        patient,
      }),
    );
    expect(error.domainCode).toBe("SERVICE_INACTIVE");
  });

  it("lets a role below STAFF cancel only the appointments it booked; STAFF cancels any", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { durationMin: 60, providerId: c.provider.id });
    const agent = callerFor(t.db, c.custom, { now: pinnedNow });
    const otherAgent = callerFor(t.db, await addMember(t.db, c.clinicId, { role: "BOOKING_AGENT" }), {
      now: pinnedNow,
    });
    const staff = callerFor(t.db, c.staff, { now: pinnedNow });
    const mine = await agent.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient,
    });
    const theirs = await otherAgent.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T10:00:00Z"),
      patient,
    });
    const byStaff = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T11:00:00Z"),
      patient,
    });
    const refused = await rejectionOf(agent.appointments.cancel({ clinic_id: c.clinicId, id: theirs.id }));
    expect(refused.domainCode).toBe("FORBIDDEN");
    expect(JSON.stringify(refused)).not.toContain(patient.email);
    expect(await codeOf(agent.appointments.cancel({ clinic_id: c.clinicId, id: byStaff.id }))).toBe("FORBIDDEN");
    expect((await agent.appointments.cancel({ clinic_id: c.clinicId, id: mine.id })).status).toBe("canceled");
    expect((await staff.appointments.cancel({ clinic_id: c.clinicId, id: theirs.id })).status).toBe("canceled");
    expect((await staff.appointments.get({ clinic_id: c.clinicId, id: byStaff.id })).status).toBe("booked");
  });
});
