import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type DbHandle, executePositional, hasCitus, openDatabase } from "@clinic/db";
import { jobs } from "@clinic/db";
import { runDueJobs } from "../src/modules/jobs/index.ts";
import { followWebhookFeed, webhooksBehind } from "../src/modules/webhooks/index.ts";
import { addService, addWebhook, bookableClinic, callerFor, pinnedNow } from "../testing/index.ts";

// On Citus (docs/scale-out.md), every statement of the hot paths — authorization, the availability
// read, the booking's read and write, the move, the list and the cancel — names its clinic, so
// Citus routes it to the one node that holds that clinic: its plan is a single-task router plan.
// The test records the statements that the real procedures run and asks Citus to plan each one.
// A booking, a move and a cancel run no statement anywhere else (no job-queue row on the
// coordinator: their jobs wait in the clinic's outbox). The booking's functions are delegated to
// the clinic's node (a one-task plan of the call); that every statement inside them names the
// clinic is checked on their source by packages/db/test/functions.test.ts (Citus would run a
// statement that does not on every shard, from the worker, without complaint).
const databaseUrl = inject("databaseUrl");

interface Statement {
  text: string;
  parameters: unknown[];
  path: string;
}

describe.skipIf(!databaseUrl)("hot paths on Citus", () => {
  let handle: DbHandle;
  let citus = false;
  const statements: Statement[] = [];
  let path = "";
  beforeAll(async () => {
    handle = await openDatabase({
      url: databaseUrl,
      poolMax: 4,
      onQuery: (text, parameters) => statements.push({ text, parameters, path }),
    });
    citus = await hasCitus(handle.db);
  });
  afterAll(async () => {
    await handle.close();
  });

  /** Each statement captured under `of`, on one line, with the Task Counts of its EXPLAIN. */
  async function plansOf(of: string): Promise<{ statement: string; tasks: number[] }[]> {
    const plans: { statement: string; tasks: number[] }[] = [];
    for (const s of statements.filter((x) => x.path === of)) {
      const rows = await executePositional(handle.db, `explain ${s.text}`, s.parameters);
      const plan = rows.map((r) => String(r["QUERY PLAN"])).join("\n");
      plans.push({
        statement: s.text.replace(/\s+/g, " ").trim(),
        tasks: [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1])),
      });
    }
    return plans;
  }

  it("run every statement on one shard (EXPLAIN: Citus Adaptive, Task Count 1)", async (context) => {
    if (!citus) context.skip();
    const c = await bookableClinic(handle.db);
    const service = await addService(handle.db, c.clinicId, { durationMin: 30 });
    const staff = callerFor(handle.db, c.staff, { now: pinnedNow });
    statements.length = 0;
    path = "availability.get";
    await staff.availability.get({ clinic_id: c.clinicId, service_id: service, from: "2027-03-15", to: "2027-03-15" });
    path = "appointments.book";
    const booked = await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T10:00:00Z",
      patient: { name: "Pat" },
    });
    path = "appointments.list";
    await staff.appointments.list({ clinic_id: c.clinicId, from: "2027-03-15T00:00:00Z", to: "2027-03-16T00:00:00Z" });
    path = "appointments.reschedule";
    await staff.appointments.reschedule({ clinic_id: c.clinicId, id: booked.id, start: "2027-03-15T11:00:00Z" });
    path = "appointments.cancel";
    await staff.appointments.cancel({ clinic_id: c.clinicId, id: booked.id });
    // The front desk (§13): a hold, its booking, a status change and a release.
    path = "appointments.hold";
    const hold = await staff.appointments.hold({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T12:00:00Z",
    });
    const spare = await staff.appointments.hold({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T13:00:00Z",
    });
    path = "appointments.book+hold";
    await staff.appointments.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T12:00:00Z",
      hold_id: hold.id,
      patient: { name: "Pat" },
    });
    path = "appointments.setStatus";
    await callerFor(handle.db, c.staff, { now: () => new Date("2027-03-15T11:30:00Z") }).appointments.setStatus({
      clinic_id: c.clinicId,
      id: hold.id,
      status: "arrived",
    });
    path = "appointments.releaseHold";
    await staff.appointments.releaseHold({ clinic_id: c.clinicId, id: spare.id });
    // A guest's hold (§15 v1.3): its limits are counted under the clinic's row lock, on its node.
    path = "setup";
    await c.asAdmin.clinics.update({ clinic_id: c.clinicId, online_booking: true });
    path = "onlineBooking.book (guest)";
    await callerFor(handle.db, null, { now: pinnedNow }).onlineBooking.book({
      clinic_id: c.clinicId,
      service_id: service,
      start: "2027-03-15T14:00:00Z",
      patient: { name: "Guest", email: "guest@example.test" },
    });

    const desk = [
      "appointments.hold",
      "appointments.book+hold",
      "appointments.setStatus",
      "appointments.releaseHold",
      "onlineBooking.book (guest)",
    ];
    const planned: { path: string; statement: string; tasks: number[] }[] = [];
    const elsewhere: { path: string; statement: string }[] = [];
    for (const s of statements) {
      if (!/^\s*(select|insert|update|delete|with)\b/i.test(s.text)) continue;
      const rows = await executePositional(handle.db, `explain ${s.text}`, s.parameters);
      const plan = rows.map((r) => String(r["QUERY PLAN"])).join("\n");
      if (!plan.includes("Citus")) {
        elsewhere.push({ path: s.path, statement: s.text.replace(/\s+/g, " ") });
        continue;
      }
      const tasks = [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));
      planned.push({ path: s.path, statement: s.text.replace(/\s+/g, " "), tasks });
    }
    console.log(
      `${String(planned.length)} statements on distributed tables planned, of ${String(statements.length)} run`,
    );
    // Each procedure ran statements on distributed tables, and each was a one-task router plan.
    for (const p of [
      "availability.get",
      "appointments.book",
      "appointments.list",
      "appointments.reschedule",
      "appointments.cancel",
      ...desk,
    ]) {
      expect(planned.filter((x) => x.path === p).length, p).toBeGreaterThan(0);
    }
    // Nothing of a booking, a move or a cancel ran off the clinic's node.
    expect(
      elsewhere.filter((e) =>
        ["appointments.book", "appointments.reschedule", "appointments.cancel", ...desk].includes(e.path),
      ),
    ).toEqual([]);
    // The booking is its authorization, one read and one write, both delegated function calls.
    const booking = planned.filter((p) => p.path === "appointments.book").map((p) => p.statement);
    expect(booking).toHaveLength(3);
    expect(booking.slice(1).map((text) => /clinic_(schedule_context|book_appointment)/.exec(text)?.[0])).toEqual([
      "clinic_schedule_context",
      "clinic_book_appointment",
    ]);
    // A guest's booking: the clinic's authorization, the read, and the write that counts its holds.
    expect(
      planned
        .filter((p) => p.path === "onlineBooking.book (guest)")
        .map((p) => /clinic_(schedule_context|book_guest_hold)/.exec(p.statement)?.[0])
        .slice(-2),
    ).toEqual(["clinic_schedule_context", "clinic_book_guest_hold"]);
    expect(planned.filter((p) => p.tasks.length === 0 || p.tasks.some((n) => n !== 1))).toEqual([]);
    // The authorization query is among them (the clinic and the caller's membership).
    expect(
      planned.some((p) => p.statement.includes('"clinic_members"') && p.statement.includes('from "clinics"')),
    ).toBe(true);
  }, 60_000);

  it("claims, completes and fails a clinic's jobs on its node; only the look for due clinics spans the shards (docs/jobs.md)", async (context) => {
    if (!citus) context.skip();
    const c = await bookableClinic(handle.db);
    // A queue of this test's own: the workers of other test files never take its jobs, nor it theirs.
    const queue = `explain-${crypto.randomUUID()}`;
    await handle.db
      .insert(jobs)
      .values([1, 2, 3].map((i) => ({ clinicId: c.clinicId, jobId: crypto.randomUUID(), queue, data: { i } })));
    statements.length = 0;
    path = "jobs";
    const ran = await runDueJobs(
      handle.db,
      new Map([
        [
          queue,
          (job: { data: object }) =>
            "i" in job.data && job.data.i === 3 ? Promise.reject(new Error("refused")) : Promise.resolve(),
        ],
      ]),
      { clinics: 10_000 },
    );
    expect(ran).toBe(3);
    const plans = await plansOf("jobs");
    const [look, ...perClinic] = plans;
    expect(look?.statement.trim()).toMatch(/^select clinic_id, null::uuid as id from \( select clinic_id from "jobs"/);
    expect(look?.tasks.some((n) => n > 1)).toBe(true);
    // The claim (a delegated function), the completion and the failure: one task each.
    expect(
      perClinic.map((p) => /^(select clinic_claim_jobs|delete from "jobs"|update "jobs")/.exec(p.statement)?.[1]),
    ).toEqual(["select clinic_claim_jobs", 'delete from "jobs"', 'update "jobs"']);
    expect(perClinic.filter((p) => p.tasks.length === 0 || p.tasks.some((n) => n !== 1))).toEqual([]);
  }, 60_000);

  it("reads a webhook's feed and records its attempts on the clinic's node; only the look for webhooks behind spans the shards (docs/events.md#webhooks)", async (context) => {
    if (!citus) context.skip();
    const c = await bookableClinic(handle.db);
    const service = await addService(handle.db, c.clinicId, { durationMin: 30 });
    // Refused at once (port 9): each attempt is recorded with its retry.
    const hook = await addWebhook(handle.db, c.clinicId, { url: "http://127.0.0.1:9/hook" });
    const staff = callerFor(handle.db, c.staff, { now: pinnedNow });
    for (const start of ["2027-03-15T09:00:00Z", "2027-03-15T10:00:00Z"])
      await staff.appointments.book({ clinic_id: c.clinicId, service_id: service, start, patient: { name: "Pat" } });
    statements.length = 0;
    path = "feed";
    expect((await webhooksBehind(handle.db, 10_000)).some((w) => w.webhookId === hook)).toBe(true);
    const attempted = await followWebhookFeed(handle.db, c.clinicId, hook, {
      allowPrivate: true,
      timeoutMs: 2_000,
      retryDelaysS: [600],
      leaseS: 60,
    });
    expect(attempted).toBe(2);
    const plans = await plansOf("feed");
    const [look, ...perClinic] = plans;
    expect(look?.statement).toMatch(/^select w.clinic_id, w.id from webhooks w join event_counters/);
    expect(look?.tasks.some((n) => n > 1)).toBe(true);
    // The claim, then the outcomes' record with the next claim: one delegated call each, one task.
    expect(perClinic.map((p) => /^select clinic_webhook_feed/.test(p.statement))).toEqual([true, true]);
    expect(perClinic.filter((p) => p.tasks.length === 0 || p.tasks.some((n) => n !== 1))).toEqual([]);
  }, 60_000);
});
