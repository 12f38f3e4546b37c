// The whole booking flow through the built client against a real server listening on a port
// (buildApp on the test database: PGlite by default, PostgreSQL when DATABASE_URL is set).
import { beforeAll, describe, expect, it } from "vitest";
import { failureOf, newIdentity } from "@clinic/api/testing";
import { useTestApp } from "@clinic/server/test-helpers";
import { createClient, errorCodeOf, problemOf, type ClinicClient } from "../dist/index.js";

const t = useTestApp();
let url = "";
beforeAll(async () => {
  url = await t.app.listen({ port: 0, host: "127.0.0.1" });
});

const timeZone = "Europe/Berlin";

/** Today's date in the clinic's zone, then the next Monday after it (so every slot is in the future). */
function nextMonday(): string {
  const today = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date());
  const day = new Date(`${today}T00:00:00Z`);
  do day.setUTCDate(day.getUTCDate() + 1);
  while (day.getUTCDay() !== 1);
  return day.toISOString().slice(0, 10);
}

async function adminClient(): Promise<ClinicClient> {
  return createClient({ url, token: (await newIdentity({ admin: true })).token });
}

/** A clinic with one approved provider, Monday hours 09:00–12:00 and a 30-minute service. */
async function bookableClinic(api: ClinicClient) {
  const clinic = await api.clinics.create.mutate({ name: `Client E2E ${crypto.randomUUID()}`, timezone: timeZone });
  const member = await api.members.add.mutate({
    clinic_id: clinic.id,
    email: `anna-${crypto.randomUUID()}@test.example`,
    full_name: "Anna Berg",
    is_provider: true,
  });
  expect(member.status).toBe("pending");
  const approved = await api.providers.approve.mutate({ clinic_id: clinic.id, user_id: member.user_id });
  expect(approved.status).toBe("approved");
  await api.workHours.createClinic.mutate({ clinic_id: clinic.id, weekday: 1, opens_at: "09:00", closes_at: "12:00" });
  await api.workHours.createProvider.mutate({
    clinic_id: clinic.id,
    provider_id: member.user_id,
    weekday: 1,
    opens_at: "09:00",
    closes_at: "12:00",
  });
  const service = await api.services.create.mutate({
    clinic_id: clinic.id,
    name: "Deep Tissue Massage",
    duration_min: 30,
    price: "60.00",
    provider_id: member.user_id,
  });
  return { clinic, providerId: member.user_id, service };
}

describe("client against a running server", () => {
  it("books, sees the slot disappear, cancels and sees it back", async () => {
    const api = await adminClient();
    const { clinic, providerId, service } = await bookableClinic(api);
    expect(service.provider_name).toBe("Anna Berg");
    const monday = nextMonday();
    const range = { clinic_id: clinic.id, service_id: service.id, from: monday, to: monday };

    // Two queries in the same tick travel in one batched request.
    const [before, found] = await Promise.all([
      api.availability.get.query(range),
      api.services.search.query({ clinic_id: clinic.id, q: "deep tissue" }),
    ]);
    expect(found.matches[0]?.service.id).toBe(service.id);
    expect(before.timezone).toBe(timeZone);
    expect(before.slots.map((s) => s.start_local.slice(11))).toEqual([
      "09:00",
      "09:30",
      "10:00",
      "10:30",
      "11:00",
      "11:30",
    ]);
    const first = before.slots[0];
    if (!first) throw new Error("no slot");
    expect(first.start).toBeInstanceOf(Date);
    expect(first.provider_ids).toEqual([providerId]);

    const booked = await api.appointments.book.mutate({
      clinic_id: clinic.id,
      service_id: service.id,
      start: first.start,
      patient: { name: "Pat Patient", email: "pat@example.test", phone_e164: "+4915112345678" },
      idempotency_key: crypto.randomUUID(),
    });
    expect(booked.status).toBe("booked");
    expect(booked.start).toBeInstanceOf(Date);
    expect(booked.start.getTime()).toBe(first.start.getTime());
    expect(booked.end.getTime() - booked.start.getTime()).toBe(30 * 60_000);
    expect(booked.provider_name).toBe("Anna Berg");

    const during = await api.availability.get.query(range);
    expect(during.slots.map((s) => s.start.getTime())).not.toContain(first.start.getTime());
    expect(during.slots).toHaveLength(5);
    const listed = await api.appointments.list.query({ clinic_id: clinic.id, status: "booked" });
    expect(listed.appointments.map((a) => a.id)).toEqual([booked.id]);

    const canceled = await api.appointments.cancel.mutate({ clinic_id: clinic.id, id: booked.id });
    expect(canceled.status).toBe("canceled");
    expect(canceled.canceled_at).toBeInstanceOf(Date);
    const after = await api.availability.get.query(range);
    expect(after.slots.map((s) => s.start.getTime())).toEqual(before.slots.map((s) => s.start.getTime()));
  });

  it("reports an off-grid start as SLOT_UNAVAILABLE, with the server's detail", async () => {
    const api = await adminClient();
    const { clinic, service } = await bookableClinic(api);
    const offGrid = new Date(`${nextMonday()}T09:10:00+01:00`);
    // Monday 09:10 Berlin is never on the 30-minute grid (whatever the offset that day).
    const error = await failureOf(
      api.appointments.book.mutate({
        clinic_id: clinic.id,
        service_id: service.id,
        start: offGrid,
        patient: { name: "Pat Patient" },
      }),
    );
    expect(errorCodeOf(error)).toBe("SLOT_UNAVAILABLE");
    expect(problemOf(error)).toMatchObject({ code: "SLOT_UNAVAILABLE", status: 409 });
    expect(problemOf(error)?.detail).not.toBe("");
  });

  it("reports missing authentication and invalid input with their contract codes", async () => {
    const anonymous = createClient({ url });
    expect(errorCodeOf(await failureOf(anonymous.clinics.list.query({})))).toBe("UNAUTHENTICATED");

    const api = await adminClient();
    const invalid = await failureOf(api.clinics.create.mutate({ name: "X", timezone: "Mars/Olympus" }));
    expect(errorCodeOf(invalid)).toBe("VALIDATION_FAILED");
    expect(problemOf(invalid)?.errors.map((e) => e.path)).toContain("timezone");
  });

  it("sends the token (also from a function), extra headers and uses the given fetch", async () => {
    const { id: sub, token } = await newIdentity({ admin: true });
    const seen: Headers[] = [];
    const api = createClient({
      url: `${url}/`,
      token: () => Promise.resolve(token),
      headers: { "x-request-id": "client-test-1" },
      fetch: (input: string | URL | Request, init?: RequestInit) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    const created = await api.clinics.create.mutate({ name: `Headers ${sub}` });
    expect(created.timezone).toBe("UTC");
    expect(seen[0]?.get("authorization")).toBe(`Bearer ${token}`);
    expect(seen[0]?.get("x-request-id")).toBe("client-test-1");
  });
});
