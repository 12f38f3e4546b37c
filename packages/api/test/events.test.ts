// Events recorded with every change, and the gap-free feed (E1).
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events as eventRows } from "@clinic/db";
import { addService, bookableClinic, callerFor, codeOf, pinnedNow, useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();
const at = (iso: string) => new Date(iso);

describe("events", () => {
  it("are recorded with each change, carrying the resource after it, and listed oldest first", async () => {
    const c = await bookableClinic(t.db);
    const admin = callerFor(t.db, c.admin, { now: pinnedNow });
    const service = await admin.services.create({
      clinic_id: c.clinicId,
      name: "Check",
      duration_min: 30,
      provider_id: c.provider.id,
    });
    await admin.services.update({ clinic_id: c.clinicId, id: service.id, price: "20.00" });
    const booked = await admin.appointments.book({
      clinic_id: c.clinicId,
      service_id: service.id,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Pat" },
    });
    await admin.appointments.reschedule({ clinic_id: c.clinicId, id: booked.id, start: at("2027-03-15T10:00:00Z") });
    await admin.appointments.cancel({ clinic_id: c.clinicId, id: booked.id });
    await admin.providers.suspend({ clinic_id: c.clinicId, user_id: c.provider.id });
    await admin.services.remove({ clinic_id: c.clinicId, id: service.id });

    const { events } = await admin.events.list({ clinic_id: c.clinicId });
    expect(events.map((e) => e.type)).toEqual([
      "service.created",
      "service.updated",
      "appointment.booked",
      "appointment.rescheduled",
      "appointment.canceled",
      "provider.status_changed",
      "service.deleted",
    ]);
    const [created, updated, bookedEvent, rescheduled, canceled, suspended, deleted] = events;
    expect(created?.data).toMatchObject({ id: service.id, name: "Check", price: null });
    expect(updated?.data).toMatchObject({ id: service.id, price: "20.00" });
    expect(bookedEvent?.data).toMatchObject({ id: booked.id, status: "booked", start: "2027-03-15T09:00:00.000Z" });
    expect(rescheduled?.data).toMatchObject({
      id: booked.id,
      start: "2027-03-15T10:00:00.000Z",
      previous_start: "2027-03-15T09:00:00.000Z",
      previous_end: "2027-03-15T09:30:00.000Z",
    });
    expect(canceled?.data).toMatchObject({ id: booked.id, status: "canceled" });
    expect(suspended?.data).toMatchObject({ user_id: c.provider.id, status: "suspended", previous_status: "approved" });
    expect(deleted?.data).toMatchObject({ id: service.id });
    expect(events.every((e) => e.clinic_id === c.clinicId && e.occurred_at instanceof Date)).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it("keep an appointment's event as its snapshot, shown as the writer answered it, names as they were then", async () => {
    const c = await bookableClinic(t.db);
    const admin = callerFor(t.db, c.admin, { now: pinnedNow });
    const service = await addService(t.db, c.clinicId, { name: "Before", providerId: c.provider.id });
    const booked = await admin.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: at("2027-03-15T09:00:00Z"),
      patient: { name: "Pat Snap", email: "pat.snap@example.test", phone_e164: "+4930111222" },
      notes: "knee",
    });
    const moved = await admin.appointments.reschedule({
      clinic_id: c.clinicId,
      id: booked.id,
      start: at("2027-03-15T10:00:00Z"),
    });
    const desk = callerFor(t.db, c.admin, { now: () => at("2027-03-15T09:55:00Z") });
    const arrived = await desk.appointments.setStatus({ clinic_id: c.clinicId, id: booked.id, status: "arrived" });
    await admin.services.update({ clinic_id: c.clinicId, id: service, name: "After" });

    // Stored: the snapshot, and in `data` only the event's own keys.
    const stored = await t.db
      .select({ type: eventRows.type, data: eventRows.data, appointment: eventRows.appointment })
      .from(eventRows)
      .where(eq(eventRows.clinicId, c.clinicId))
      .orderBy(asc(eventRows.seq));
    const appointmentRows = stored.filter((e) => e.type.startsWith("appointment."));
    expect(appointmentRows.map((e) => e.data)).toEqual([
      null,
      { previous_start: "2027-03-15T09:00:00.000Z", previous_end: "2027-03-15T09:30:00.000Z" },
      { previous_status: "booked" },
    ]);
    expect(appointmentRows.every((e) => e.appointment?.includes("Pat Snap"))).toBe(true);

    // Shown: what each writer answered (less the answers, which events never carry), with the
    // service's name of then.
    const { events } = await admin.events.list({
      clinic_id: c.clinicId,
      types: ["appointment.booked", "appointment.rescheduled", "appointment.status_changed"],
    });
    const without = ({ answers: _answers, ...rest }: Record<string, unknown>) => rest;
    const wire = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
    expect(events.map((e) => e.data)).toEqual([
      without(wire(booked)),
      { ...without(wire(moved)), previous_start: "2027-03-15T09:00:00.000Z", previous_end: "2027-03-15T09:30:00.000Z" },
      { ...without(wire(arrived)), previous_status: "booked" },
    ]);
    expect(events.every((e) => e.data.service_name === "Before")).toBe(true);
  });

  it("page with after = next_cursor, filter by types, and never lose a cursor's place", async () => {
    const c = await bookableClinic(t.db);
    const service = await addService(t.db, c.clinicId, { providerId: c.provider.id });
    const admin = callerFor(t.db, c.admin, { now: pinnedNow });
    for (let hour = 9; hour < 14; hour++)
      await admin.appointments.book({
        clinic_id: c.clinicId,
        service_id: service,
        start: at(`2027-03-15T${String(hour).padStart(2, "0")}:00:00Z`),
        patient: { name: "P" },
      });
    const first = await admin.events.list({ clinic_id: c.clinicId, limit: 2 });
    const second = await admin.events.list({ clinic_id: c.clinicId, limit: 2, after: first.next_cursor });
    const third = await admin.events.list({ clinic_id: c.clinicId, limit: 2, after: second.next_cursor });
    expect([first, second, third].flatMap((p) => p.events.map((e) => e.type))).toHaveLength(5);
    // The end of the feed: no events, a cursor to poll with.
    const empty = await admin.events.list({ clinic_id: c.clinicId, after: third.next_cursor });
    expect(empty.events).toEqual([]);
    await admin.services.update({ clinic_id: c.clinicId, id: service, name: "Renamed" });
    const next = await admin.events.list({ clinic_id: c.clinicId, after: empty.next_cursor });
    expect(next.events.map((e) => e.type)).toEqual(["service.updated"]);
    // A filter skips other types and its cursor moves past them.
    const onlyServices = await admin.events.list({
      clinic_id: c.clinicId,
      types: ["service.updated", "service.created"],
    });
    expect(onlyServices.events.map((e) => e.type)).toEqual(["service.updated"]);
    expect((await admin.events.list({ clinic_id: c.clinicId, after: onlyServices.next_cursor })).events).toEqual([]);
  });

  it("are CLINIC_ADMIN's, refuse a cursor the feed did not issue and unknown types, and never show another clinic's", async () => {
    const c = await bookableClinic(t.db);
    const other = await bookableClinic(t.db);
    await other.asAdmin.services.create({ clinic_id: other.clinicId, name: "Theirs", duration_min: 30 });
    expect(await codeOf(c.asStaff.events.list({ clinic_id: c.clinicId }))).toBe("FORBIDDEN");
    expect(await codeOf(c.asAdmin.events.list({ clinic_id: c.clinicId, after: "not-a-cursor" }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await codeOf(c.asAdmin.events.list({ clinic_id: c.clinicId, types: ["booked"] as never }))).toBe(
      "VALIDATION_FAILED",
    );
    expect((await c.asAdmin.events.list({ clinic_id: c.clinicId })).events).toEqual([]);
    expect(await codeOf(c.asAdmin.events.list({ clinic_id: other.clinicId }))).toBe("FORBIDDEN");
  });
});
