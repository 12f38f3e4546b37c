// Erasure proven by search, not by inspection (CONTRACT §21, issue 40, docs/patient-data.md): unique
// strings are planted as a patient's name, e-mail, phone, notes and answers; every feature that
// copies them runs — a staff booking with an Idempotency-Key, a move, a guest's booking confirmed
// by its e-mailed link, a series, a waitlist entry, e-mails sent through SMTP, webhooks with their
// deliveries; a dump of the whole database finds every planted string (the positive control); the
// patient is erased; then no line of a new dump holds one, except rows of another clinic where
// the same patient was booked too (untouched, and checked), and no API answer of the clinic does.
// The dump is pg_dump on PostgreSQL; on Citus (whose rows live on the workers, which the
// coordinator's pg_dump does not see) and on PGlite it is every row of every table as text.
import { execFile } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { promisify } from "node:util";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { addService, bookableClinic } from "@clinic/api/testing";
import { clinics, rowsOf } from "@clinic/db";
import { problemOf, request } from "./helpers.ts";
import { useDeliveringApp } from "./deliveringApp.ts";

const now = new Date("2027-03-12T07:00:00.000Z");
vi.setConfig({ testTimeout: 300_000 });

const { t, catcher, receiver } = await useDeliveringApp({ now, ownDatabase: "clinic_erasure" });

/** The database as lines of text: pg_dump's data on PostgreSQL; every row of every table elsewhere. */
async function dump(): Promise<string[]> {
  const [citus] = rowsOf<{ n: number }>(
    await t.handle.db.execute(sql`select count(*)::int as n from pg_extension where extname = 'citus'`),
  );
  if (t.url && citus?.n === 0) {
    const { stdout } = await promisify(execFile)("pg_dump", ["--data-only", "--no-owner", t.url], {
      maxBuffer: 512 * 1024 * 1024,
    });
    return stdout.split("\n");
  }
  const tables = rowsOf<{ name: string }>(
    await t.handle.db.execute(
      sql`select table_name as name from information_schema.tables
          where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
    ),
  );
  const lines: string[] = [];
  for (const { name } of tables) {
    const rows = rowsOf<{ line: string }>(
      await t.handle.db.execute(
        sql`select ${name} || ': ' || row_to_json(x)::text as line from ${sql.identifier(name)} x`,
      ),
    );
    lines.push(...rows.map((r) => r.line));
  }
  return lines;
}

/** The lines that hold `value` (any case). */
const holding = (lines: readonly string[], value: string) =>
  lines.filter((line) => line.toLowerCase().includes(value.toLowerCase()));

describe("erasure (§21 X2), proven by a search of the whole database", () => {
  it("leaves no planted value in a dump of the database nor in any answer of the clinic; another clinic's copy is untouched", async () => {
    const tag = randomBytes(6).toString("hex");
    const planted = {
      name: `Zelda Planted ${tag}`,
      email: `zelda.${tag}@example.test`,
      phone: `+4930${String(randomInt(10_000_000, 99_999_999))}`,
      notes: `note-${tag}-knee`,
      answer: `answer-${tag}-allergic`,
    };
    const patient = { name: planted.name, email: planted.email, phone_e164: planted.phone };

    async function clinicWithQuestions() {
      const c = await bookableClinic(t.handle.db, { timezone: "Europe/Berlin" });
      const service = await addService(t.handle.db, c.clinicId, { name: "Intake", providerId: c.provider.id });
      await t.handle.db.update(clinics).set({ onlineBooking: true }).where(eq(clinics.id, c.clinicId));
      const patched = await request(t.app, {
        method: "PATCH",
        url: `/v1/services/${service}?clinic_id=${c.clinicId}`,
        token: c.admin.token,
        body: { questions: [{ key: "allergies", label: "Allergies", type: "long_text", required: true }] },
      });
      expect(patched.statusCode).toBe(200);
      return { ...c, service };
    }
    const a = await clinicWithQuestions();
    const b = await clinicWithQuestions();
    for (const includeAnswers of [false, true]) {
      const hook = await request(t.app, {
        method: "POST",
        url: `/v1/clinics/${a.clinicId}/webhooks`,
        token: a.admin.token,
        body: {
          url: `http://127.0.0.1:${String(receiver.port)}/hook`,
          event_types: ["*"],
          include_answers: includeAnswers,
        },
      });
      expect(hook.statusCode).toBe(201);
    }
    const book = (c: typeof a, start: string, extra: Record<string, unknown> = {}, headers?: Record<string, string>) =>
      request(t.app, {
        method: "POST",
        url: `/v1/appointments?clinic_id=${c.clinicId}`,
        token: c.staff.token,
        body: {
          service_id: c.service,
          start,
          patient,
          notes: planted.notes,
          answers: { allergies: planted.answer },
          ...extra,
        },
        ...(headers ? { headers } : {}),
      });

    // Every feature that copies the values, in clinic A.
    const first = await book(a, "2027-03-15T09:00:00Z", {}, { "idempotency-key": `erasure-${tag}` });
    expect(first.statusCode).toBe(201);
    const firstId = first.json<{ id: string }>().id;
    const moved = await request(t.app, {
      method: "POST",
      url: `/v1/appointments/${firstId}/reschedule?clinic_id=${a.clinicId}`,
      token: a.staff.token,
      body: { start: "2027-03-15T10:00:00Z" },
    });
    expect(moved.statusCode).toBe(200);
    const series = await request(t.app, {
      method: "POST",
      url: `/v1/appointment_series?clinic_id=${a.clinicId}`,
      token: a.staff.token,
      body: {
        service_id: a.service,
        start: "2027-03-16T09:00:00Z",
        rrule: "FREQ=WEEKLY;COUNT=2",
        patient,
        notes: planted.notes,
        answers: { allergies: planted.answer },
      },
    });
    expect(series.statusCode).toBe(201);
    const guest = await request(t.app, {
      method: "POST",
      url: `/v1/booking/clinics/${a.clinicId}/appointments`,
      body: {
        service_id: a.service,
        start: "2027-03-17T09:00:00Z",
        patient,
        notes: planted.notes,
        answers: { allergies: planted.answer },
      },
    });
    expect(guest.statusCode).toBe(201);
    const confirmMail = await catcher.waitFor(
      (m) => m.to.includes(planted.email) && /confirm/i.test(m.subject),
      45_000,
    );
    const token = /https:\/\/clinic\.example\/manage\/([A-Za-z0-9_-]{64})/.exec(confirmMail.text)?.[1] ?? "";
    expect((await request(t.app, { method: "POST", url: `/v1/manage/${token}/confirm` })).statusCode).toBe(200);
    const waiting = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${a.clinicId}/waitlist`,
      token: a.staff.token,
      body: {
        service_id: a.service,
        from_date: "2027-03-18",
        to_date: "2027-03-19",
        patient: { name: planted.name, email: planted.email, phone_e164: planted.phone },
      },
    });
    expect(waiting.statusCode).toBe(201);
    // The same patient in clinic B.
    const inB = await book(b, "2027-03-15T09:00:00Z");
    expect(inB.statusCode).toBe(201);

    // The workers have sent everything: e-mails and webhook deliveries.
    await catcher.waitFor((m) => m.to.includes(planted.email) && /^Booked/.test(m.subject), 45_000);
    await catcher.waitFor((m) => m.to.includes(planted.email) && /^Moved/.test(m.subject), 45_000);
    // Settled: nothing pending to send, every webhook's cursor at the feed's end, and the waitlist
    // entry past `waiting` (the matcher, every 300 ms, offers it a slot: a hold, a message, an
    // event), for a second on end. A count of pending rows alone reached 0 between a batch and the
    // offer on a slow CI host, and the offer's message was pending a moment later.
    const unsettled = async () => {
      const [row] = rowsOf<{ n: number }>(
        await t.handle.db.execute(
          sql`select ((select count(*) from messages where clinic_id = ${a.clinicId}::uuid and status = 'pending')
                   + (select count(*) from webhook_deliveries where clinic_id = ${a.clinicId}::uuid and status = 'pending')
                   + (select count(*) from webhooks w where w.clinic_id = ${a.clinicId}::uuid
                        and w.feed_seq < coalesce((select c.last_seq from event_counters c where c.clinic_id = ${a.clinicId}::uuid), 0))
                   + (select count(*) from waitlist_entries where clinic_id = ${a.clinicId}::uuid and status = 'waiting')
                   )::int as n`,
        ),
      );
      return row?.n ?? 0;
    };
    // Up to 90 s: on a loaded CI host (Citus beside the other suites) one message or delivery was
    // still pending after 40 s.
    for (let i = 0, calm = 0; i < 450 && calm < 5; i++) {
      calm = (await unsettled()) === 0 ? calm + 1 : 0;
      await new Promise((r) => setTimeout(r, 200));
    }
    // What is still pending, if anything, with the queue's view of it: its kind, attempts and error
    // say which worker is behind.
    const stuck = rowsOf<Record<string, unknown>>(
      await t.handle.db.execute(
        sql`select 'message' as what, m.kind, m.attempts, m.last_error, m.next_attempt_at::text as next_at, m.created_at::text as created
            from messages m where m.clinic_id = ${a.clinicId}::uuid and m.status = 'pending'
            union all
            select 'delivery', d.event_type, d.attempts, d.last_error, d.next_attempt_at::text, d.created_at::text
            from webhook_deliveries d where d.clinic_id = ${a.clinicId}::uuid and d.status = 'pending'`,
      ),
    );
    const jobs =
      stuck.length === 0
        ? []
        : rowsOf<Record<string, unknown>>(
            await t.handle.db.execute(
              sql`select j.queue, j.attempts, j.run_at::text as run_at, j.leased_until::text as leased_until,
                         j.failed_at::text as failed_at, j.last_error
                  from jobs j where j.clinic_id = ${a.clinicId}::uuid`,
            ),
          );
    expect(stuck, `the clinic's jobs: ${JSON.stringify(jobs)}`).toEqual([]);
    expect(await unsettled(), "webhooks behind the feed, or the waitlist entry still waiting").toBe(0);
    expect(receiver.received.some((r) => r.body.includes(planted.answer))).toBe(true);

    // The positive control: the dump finds every planted value, in clinic A's rows.
    const before = await dump();
    for (const [what, value] of Object.entries(planted)) {
      expect(holding(before, value).filter((line) => line.includes(a.clinicId)).length, what).toBeGreaterThan(0);
    }

    const erased = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${a.clinicId}/patients/erase`,
      token: a.admin.token,
      body: { email: planted.email.toUpperCase(), reason: "GDPR Art. 17 request of 2027-03-12" },
    });
    expect(erased.statusCode).toBe(200);
    const result = erased.json<{ pseudonym: string; erased: Record<string, number> }>();
    expect(result.pseudonym).toMatch(/^erased-[0-9a-f]{8}$/);
    // Four booked, and the hold the waitlist may have offered the entry meanwhile.
    expect(result.erased.appointments).toBeGreaterThanOrEqual(4);
    expect(result.erased.waitlist_entries).toBe(1);
    expect(result.erased.messages).toBeGreaterThanOrEqual(4);
    expect(result.erased.events).toBeGreaterThanOrEqual(4);
    expect(result.erased.deliveries).toBeGreaterThanOrEqual(8);

    // No line of the new dump holds a planted value, but rows of clinic B.
    const after = await dump();
    for (const [what, value] of Object.entries(planted)) {
      const left = holding(after, value).filter((line) => !line.includes(b.clinicId));
      expect(left, `${what} left in the dump`).toEqual([]);
    }
    // Clinic B's copy is untouched.
    const bList = await request(t.app, {
      method: "GET",
      url: `/v1/appointments?clinic_id=${b.clinicId}`,
      token: b.staff.token,
    });
    expect(bList.body).toContain(planted.name);
    expect(bList.body).toContain(planted.answer);

    // No answer of clinic A holds one: lists, events, messages, waitlist, audit, deliveries, the
    // feed, FHIR, the manage link (dead).
    const feed = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${a.clinicId}/calendar_feeds`,
      token: a.admin.token,
      body: { include_patient_names: true },
    });
    const hooks = await request(t.app, {
      method: "GET",
      url: `/v1/clinics/${a.clinicId}/webhooks`,
      token: a.admin.token,
    });
    const hookIds = hooks.json<{ webhooks: { id: string }[] }>().webhooks.map((h) => h.id);
    const answers = {
      appointments: await request(t.app, {
        method: "GET",
        url: `/v1/appointments?clinic_id=${a.clinicId}`,
        token: a.staff.token,
      }),
      appointment: await request(t.app, {
        method: "GET",
        url: `/v1/appointments/${firstId}?clinic_id=${a.clinicId}`,
        token: a.staff.token,
      }),
      events: await request(t.app, { method: "GET", url: `/v1/events?clinic_id=${a.clinicId}`, token: a.admin.token }),
      messages: await request(t.app, {
        method: "GET",
        url: `/v1/clinics/${a.clinicId}/messages`,
        token: a.staff.token,
      }),
      waitlist: await request(t.app, {
        method: "GET",
        url: `/v1/clinics/${a.clinicId}/waitlist`,
        token: a.staff.token,
      }),
      audit: await request(t.app, {
        method: "GET",
        url: `/v1/audit_log?clinic_id=${a.clinicId}`,
        token: a.admin.token,
      }),
      series: await request(t.app, {
        method: "GET",
        url: `/v1/appointment_series/${series.json<{ id: string }>().id}?clinic_id=${a.clinicId}`,
        token: a.staff.token,
      }),
      feed: await request(t.app, { method: "GET", url: new URL(feed.json<{ url: string }>().url).pathname }),
      fhir: await request(t.app, {
        method: "GET",
        url: `/fhir/R4/Appointment/${a.clinicId.replaceAll("-", "")}${firstId.replaceAll("-", "")}`,
        token: a.staff.token,
      }),
    };
    const deliveries = await Promise.all(
      hookIds.map((id) =>
        request(t.app, {
          method: "GET",
          url: `/v1/clinics/${a.clinicId}/webhooks/${id}/deliveries`,
          token: a.admin.token,
        }),
      ),
    );
    for (const [name, response] of [
      ...Object.entries(answers),
      ...deliveries.map((d, i) => [`deliveries ${String(i)}`, d] as const),
    ]) {
      expect(response.statusCode, name).toBe(200);
      for (const [what, value] of Object.entries(planted))
        expect(response.body.toLowerCase(), `${name}: ${what}`).not.toContain(value.toLowerCase());
    }
    expect(answers.appointment.json()).toMatchObject({
      patient: { name: result.pseudonym, email: null, phone_e164: null },
      notes: null,
      answers: [],
      status: "canceled",
    });
    expect(
      answers.audit.json<{ entries: { action: string; details: Record<string, unknown> }[] }>().entries[0],
    ).toMatchObject({
      action: "PATIENT_ERASED",
      details: { pseudonym: result.pseudonym, reason: "GDPR Art. 17 request of 2027-03-12" },
    });
    const dead = await request(t.app, { method: "GET", url: `/v1/manage/${token}` });
    expect(dead.statusCode).toBe(404);
    expect(problemOf(dead).code).toBe("NOT_FOUND");

    // Idempotent: again, nothing more is erased, and the pseudonym is the same.
    const again = await request(t.app, {
      method: "POST",
      url: `/v1/clinics/${a.clinicId}/patients/erase`,
      token: a.admin.token,
      body: { email: planted.email, reason: "again" },
    });
    expect(again.json()).toEqual({
      pseudonym: result.pseudonym,
      erased: { appointments: 0, messages: 0, waitlist_entries: 0, events: 0, deliveries: 0, audit_entries: 0 },
    });
  });
});
