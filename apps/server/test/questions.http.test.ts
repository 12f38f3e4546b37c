// Answers go only where §19 sends them (docs/questions.md#who-sees-answers): a planted answer is
// given to a staff booking, a guest's booking confirmed by its link, a move and a cancel that offers
// the time to the waitlist; the service's workers send every e-mail (real SMTP to a catcher) and
// every webhook delivery (to a receiver on 127.0.0.1). Then the planted answer is searched for in
// every output that must not carry it — events, a webhook that did not opt in, the calendar feed,
// the e-mails and their .ics, the messages list, the waitlist, V2 — and in the tables those outputs
// are made from; and found where it must be: B2, U1, L1 and the webhook that opted in.
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { addService, bookableClinic, clinicDeliveries, createUser } from "@clinic/api/testing";
import { clinics, rowsOf } from "@clinic/db";
import type { CaughtMail } from "../src/mailCatcher.ts";
import { problemOf, request } from "./helpers.ts";
import { useDeliveringApp } from "./deliveringApp.ts";

// Three days before the appointments: outside any cancellation cutoff.
const now = new Date("2027-03-12T07:00:00.000Z");
vi.setConfig({ testTimeout: 120_000 });

const { t, catcher, receiver } = await useDeliveringApp({ now, ownDatabase: "clinic_questions" });

interface Appointment {
  id: string;
  status: string;
  answers: { key: string; label: string; type: string; value: unknown }[];
}

/** Polls `check` until it holds, for up to 45 s; the last state is in the error. */
async function eventually<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 45_000;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > until) throw new Error(`${what} did not happen: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

const mailText = (mail: CaughtMail) =>
  [mail.subject, mail.text, mail.html ?? "", ...mail.attachments.map((a) => a.content)].join("\n");

describe("answers (§19) appear only where the contract sends them", () => {
  it("a planted answer is in B2, U1, L1 and the opted-in webhook, and nowhere else", async () => {
    const planted = `planted-${randomUUID()}`;
    const c = await bookableClinic(t.handle.db, { timezone: "Europe/Berlin" });
    const service = await addService(t.handle.db, c.clinicId, {
      name: "Intake",
      providerId: c.provider.id,
      durationMin: 30,
    });
    await t.handle.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, c.clinicId));
    const questions = await request(t.app, {
      method: "PATCH",
      url: `/v1/services/${service}?clinic_id=${c.clinicId}`,
      token: c.admin.token,
      body: {
        questions: [
          { key: "reason", label: "Reason for the visit", type: "long_text", required: true },
          { key: "consent", label: "I agree", type: "boolean", required: true },
        ],
      },
    });
    expect(questions.statusCode).toBe(200);
    const hook = (includeAnswers: boolean) =>
      request(t.app, {
        method: "POST",
        url: `/v1/clinics/${c.clinicId}/webhooks`,
        token: c.admin.token,
        body: {
          url: `http://127.0.0.1:${String(receiver.port)}/${includeAnswers ? "with" : "without"}/${c.clinicId}`,
          event_types: ["*"],
          ...(includeAnswers ? { include_answers: true } : {}),
        },
      });
    const plain = await hook(false);
    expect(plain.json()).toMatchObject({ include_answers: false });
    const opted = await hook(true);
    expect(opted.statusCode).toBe(201);
    expect(opted.json()).toMatchObject({ include_answers: true });
    const answers = { reason: planted, consent: true };
    const patient = await createUser(t.handle.db);
    const email = `pat-${c.clinicId.slice(0, 8)}@example.test`;
    const guestEmail = `guest-${c.clinicId.slice(0, 8)}@example.test`;

    // A wrong answer over HTTP: 400 problem+json at answers.consent, nothing booked.
    const wrong = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { service_id: service, start: "2027-03-15T09:00:00Z", patient: { name: "Pat" }, answers: { reason: "x" } },
    });
    expect(wrong.statusCode).toBe(400);
    expect(problemOf(wrong)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "answers.consent" }] });

    // B1 for a registered patient with an e-mail; then moved (B5).
    const staffBooked = await request(t.app, {
      method: "POST",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: {
        service_id: service,
        start: "2027-03-15T09:00:00Z",
        patient: { name: "Pat Planted", email },
        patient_user_id: patient.id,
        answers,
      },
    });
    expect(staffBooked.statusCode).toBe(201);
    const first = staffBooked.json<Appointment>();
    expect(first.answers).toEqual([
      { key: "reason", label: "Reason for the visit", type: "long_text", value: planted },
      { key: "consent", label: "I agree", type: "boolean", value: true },
    ]);
    const moved = await request(t.app, {
      method: "POST",
      url: `/v1/appointments/${first.id}/reschedule?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: { start: "2027-03-15T10:00:00Z" },
    });
    expect(moved.statusCode).toBe(200);

    // O4 as a guest, confirmed by the e-mailed link (L2).
    const guestHeld = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${c.clinicId}/appointments`,
      body: {
        service_id: service,
        start: "2027-03-15T12:00:00Z",
        patient: { name: "Gus Guest", email: guestEmail },
        answers,
      },
    });
    expect(guestHeld.statusCode).toBe(201);
    const confirmMail = await catcher.waitFor((m) => m.to.includes(guestEmail) && /confirm/i.test(m.subject), 45_000);
    const token = /https:\/\/clinic\.example\/manage\/([A-Za-z0-9_-]{64})/.exec(confirmMail.text)?.[1] ?? "";
    const confirmed = await request(t.app, { method: "POST", url: `/v1/manage/${token}/confirm` });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json<Appointment>().answers.map((a) => a.value)).toContain(planted);

    // The waitlist: a patient waits for the day; the staff booking is canceled, and its time offered.
    const waiter = await createUser(t.handle.db);
    const joined = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${c.clinicId}/waitlist`,
      token: waiter.token,
      body: { service_id: service, from_date: "2027-03-15", to_date: "2027-03-15", patient: { name: "Wendy Wait" } },
    });
    expect(joined.statusCode).toBe(201);
    const canceled = await request(t.app, {
      method: "POST",
      url: `/v1/appointments/${first.id}/cancel?clinic_id=${c.clinicId}`,
      token: c.staff.token,
      body: {},
    });
    expect(canceled.statusCode).toBe(200);

    // Everything the workers send has been sent: the e-mails (booked, moved, canceled, the guest's
    // confirm and booked, the waitlist offer) and every delivery of both webhooks.
    await catcher.waitFor((m) => m.to.includes(waiter.email), 45_000);
    await catcher.waitFor((m) => m.to.includes(email) && /^Canceled/.test(m.subject), 45_000);
    await catcher.waitFor((m) => m.to.includes(guestEmail) && /^Booked/.test(m.subject), 45_000);
    const deliveries = async () => {
      const rows = await clinicDeliveries(t.handle.db, c.clinicId);
      return { pending: rows.filter((r) => r.status !== "succeeded").length, all: rows.length };
    };
    await eventually("every delivery sent", deliveries, (d) => d.all > 0 && d.pending === 0);
    const mine = receiver.received.filter((r) => r.url.endsWith(c.clinicId));
    const without = mine.filter((r) => r.url.startsWith("/without/"));
    const withAnswers = mine.filter((r) => r.url.startsWith("/with/"));
    expect(without.length).toBeGreaterThanOrEqual(4);
    expect(withAnswers.length).toBe(without.length);

    // Where it must be: the opted-in webhook's appointment events of the answered appointments, B2, U1, L1.
    expect(withAnswers.filter((r) => r.body.includes(planted)).length).toBeGreaterThanOrEqual(4);
    const b2 = await request(t.app, {
      method: "GET",
      url: `/v1/appointments?clinic_id=${c.clinicId}`,
      token: c.staff.token,
    });
    expect(b2.body).toContain(planted);
    const u1 = await request(t.app, { method: "GET", url: "/v1/me/appointments", token: patient.token });
    expect(u1.body).toContain(planted);
    const l1 = await request(t.app, { method: "GET", url: `/v1/manage/${token}` });
    expect(l1.body).toContain(planted);

    // Where it must not be.
    for (const r of without) expect(r.body).not.toContain(planted);
    const mails = catcher.mails.filter((m) => [email, guestEmail, waiter.email].some((to) => m.to.includes(to)));
    expect(mails.length).toBeGreaterThanOrEqual(6);
    for (const mail of mails) expect(mailText(mail), mail.subject).not.toContain(planted);
    const outputs = {
      events: await request(t.app, { method: "GET", url: `/v1/events?clinic_id=${c.clinicId}`, token: c.admin.token }),
      messages: await request(t.app, {
        method: "GET",
        url: `/v1/clinics/${c.clinicId}/messages`,
        token: c.staff.token,
      }),
      waitlist: await request(t.app, {
        method: "GET",
        url: `/v1/clinics/${c.clinicId}/waitlist`,
        token: c.staff.token,
      }),
      myWaitlist: await request(t.app, { method: "GET", url: "/v1/me/waitlist", token: waiter.token }),
      explain: await request(t.app, {
        method: "GET",
        url: `/v1/availability/explain?clinic_id=${c.clinicId}&service_id=${service}&start=2027-03-15T12:00:00Z`,
        token: c.staff.token,
      }),
      deliveries: await request(t.app, {
        method: "GET",
        url: `/v1/clinics/${c.clinicId}/webhooks/${plain.json<{ id: string }>().id}/deliveries`,
        token: c.admin.token,
      }),
    };
    for (const [name, response] of Object.entries(outputs)) {
      expect(response.statusCode, name).toBe(200);
      expect(response.body, name).not.toContain(planted);
    }
    expect(outputs.events.json<{ events: unknown[] }>().events.length).toBeGreaterThanOrEqual(4);
    const feed = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${c.clinicId}/calendar_feeds`,
      token: c.admin.token,
      body: { include_patient_names: true },
    });
    expect(feed.statusCode).toBe(201);
    const calendar = await request(t.app, { method: "GET", url: new URL(feed.json<{ url: string }>().url).pathname });
    expect(calendar.statusCode).toBe(200);
    expect(calendar.body).toContain("Gus Guest");
    expect(calendar.body).not.toContain(planted);

    // And not in the rows those outputs are made from: events, messages, deliveries, jobs, waitlist.
    for (const table of ["events", "messages", "webhook_deliveries", "jobs", "waitlist_entries"]) {
      const [row] = rowsOf<{ n: number }>(
        await t.handle.db.execute(
          sql`select count(*)::int as n from ${sql.identifier(table)} x
              where x.clinic_id = ${c.clinicId}::uuid and strpos(row_to_json(x)::text, ${planted}) > 0`,
        ),
      );
      expect(row?.n, table).toBe(0);
    }
  });
});
