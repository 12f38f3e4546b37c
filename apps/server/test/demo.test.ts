import { describe, expect, it } from "vitest";
import { appRouter, createCallerFactory, createContextInner } from "@clinic/api";
import { seedDemo, demoUsers } from "../src/demo.ts";
import { useTestApp } from "./helpers.ts";

const t = useTestApp();

describe("demo clinic", () => {
  it("creates a Berlin clinic with providers in every state, hours, services, a closure and appointments, once", async () => {
    // A name of its own, so the test also passes on a database that already has the demo.
    const name = `Demo ${crypto.randomUUID()}`;
    const first = await seedDemo(t.handle.db, new Date("2027-03-10T10:00:00Z"), name);
    expect(first.created).toBe(true);
    const again = await seedDemo(t.handle.db, new Date("2027-03-10T10:00:00Z"), name);
    expect(again).toEqual({ ...first, created: false });

    const staff = { id: demoUsers.staff.id, email: demoUsers.staff.email, phoneE164: null, isAdmin: false };
    const api = createCallerFactory(appRouter)(createContextInner({ db: t.handle.db, user: staff, now: () => new Date("2027-03-10T10:00:00Z") }));
    const providers = await api.providers.list({ clinic_id: first.clinicId });
    expect(providers.providers.map((p) => [p.full_name, p.status])).toEqual([
      ["Anna Berg", "approved"],
      ["Ben Koch", "approved"],
      ["Carla Diaz", "pending"],
      ["David Wolf", "suspended"],
    ]);
    const services = await api.services.list({ clinic_id: first.clinicId });
    expect(services.services.map((s) => s.name)).toContain("Deep Tissue Massage - Anna Berg");
    expect(services.services.some((s) => s.provider_id === null)).toBe(true);
    const appointments = await api.appointments.list({ clinic_id: first.clinicId });
    expect(appointments.appointments.length).toBeGreaterThanOrEqual(3);
    const closures = await api.closures.listProvider({ clinic_id: first.clinicId, provider_id: demoUsers.ben.id });
    expect(closures.closures).toHaveLength(1);
    const hours = await api.workHours.listProvider({ clinic_id: first.clinicId, provider_id: demoUsers.anna.id, weekday: 1 });
    expect(hours.work_hours.map((h) => `${h.opens_at}-${h.closes_at}`)).toEqual(["09:00-12:00", "13:00-17:00"]);
    // The booking page is open to the demo patient, who is not a member.
    const patient = { id: demoUsers.patient.id, email: demoUsers.patient.email, phoneE164: null, isAdmin: false };
    const asPatient = createCallerFactory(appRouter)(createContextInner({ db: t.handle.db, user: patient, now: () => new Date("2027-03-10T10:00:00Z") }));
    expect((await asPatient.onlineBooking.services({ clinic_id: first.clinicId })).services.length).toBeGreaterThan(0);
  });
});
