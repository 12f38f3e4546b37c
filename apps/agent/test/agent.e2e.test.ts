// The agent's main function against a real server listening on a port (the test database:
// PGlite by default, PostgreSQL with DATABASE_URL), with captured output and scripted answers.
import { describe, expect, it } from "vitest";
import { main } from "../src/main.ts";
import { newIdentity } from "@clinic/api/testing";
import { berlinToday, bookableClinic, captureIO, useServer } from "./fixtures.ts";

const server = useServer();
const noEnv = { url: undefined, token: undefined, clinic: undefined };

/** The ISO weekday (Mon 1 … Sun 7) of a `YYYY-MM-DDTHH:MM` clinic time. */
const weekdayOf = (local: string) => {
  const day = new Date(`${local.slice(0, 10)}T00:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
};
const hourOf = (local: string) => Number(local.slice(11, 13));

describe("booking agent, end to end", () => {
  it("books the issue's example with --yes --json, in the caller's only clinic, and the appointment is listed", async () => {
    const c = await bookableClinic(server);
    const run = captureIO();
    const code = await main(
      [
        "a deep tissue massage with Anna next Tuesday afternoon",
        "--url",
        server.url(),
        "--token",
        c.agent.token,
        "--yes",
        "--json",
        "--name",
        "Pat Doe",
        "--email",
        "pat@example.test",
        "--phone",
        "+4915112345678",
      ],
      { ...run.io, env: noEnv },
    );
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    const result = run.json();
    expect(result).toMatchObject({
      status: "booked",
      exit_code: 0,
      clinic: { id: c.clinic.id },
      service: { id: c.services.deepTissue.id, provider_name: "Anna Berg" },
    });
    const startLocal = String(result.start_local);
    expect(weekdayOf(startLocal)).toBe(2);
    expect(hourOf(startLocal)).toBeGreaterThanOrEqual(12);
    expect(hourOf(startLocal)).toBeLessThan(18);
    expect(result.wanted).toMatchObject({ part_of_day: "afternoon", default_range: false });

    const { appointments } = await c.api.appointments.list.query({ clinic_id: c.clinic.id });
    expect(appointments).toHaveLength(1);
    expect(appointments[0]).toMatchObject({
      id: (result.appointment as { id: string }).id,
      service_id: c.services.deepTissue.id,
      provider_id: c.anna.id,
      status: "booked",
      patient: { name: "Pat Doe", email: "pat@example.test", phone_e164: "+4915112345678" },
    });
  });

  it("lets the user choose the service and the slot, and asks for the name", async () => {
    const c = await bookableClinic(server);
    const run = captureIO({ answers: ["2", "2", "Sam Patient"] });
    const code = await main(
      ["massage next wednesday morning", "--url", server.url(), "--token", c.agent.token, "--clinic", c.clinic.id],
      { ...run.io, env: noEnv },
    );
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    expect(run.questions).toEqual([
      "Which service? [1-2, Enter = 1, q = quit] ",
      "Book which? [1-5, Enter = 1, q = quit] ",
      "Patient name: ",
    ]);
    const text = run.stdout();
    expect(text).toMatch(
      /Several services match "massage":\n {2}1\. Deep Tissue Massage - Anna Berg \(60 min, Anna Berg\) +score \d\.\d\d\n {2}2\. Sports Massage - Ben Koch/,
    );
    // Ben works from 09:00: the second morning proposal of his 30-minute service is 09:30.
    expect(text).toMatch(/2\. Wed \d+ \w+ \d{4} 09:30–10:00/);
    expect(text).toMatch(
      /Booked: Sports Massage - Ben Koch with Ben Koch, Wed \d+ \w+ \d{4} 09:30–10:00 \(Europe\/Berlin\)\.\nAppointment [0-9a-f-]{36} for Sam Patient\./,
    );
    const { appointments } = await c.api.appointments.list.query({ clinic_id: c.clinic.id });
    expect(appointments.map((a) => [a.service_id, a.patient.name])).toEqual([[c.services.sports.id, "Sam Patient"]]);
  });

  it("books nothing when the user quits", async () => {
    const c = await bookableClinic(server);
    const run = captureIO({ answers: ["q"] });
    const code = await main(["sports massage next thursday", "--url", server.url(), "--token", c.agent.token], {
      ...run.io,
      env: noEnv,
    });
    expect(code).toBe(3);
    expect(run.stderr()).toBe("Nothing booked: no slot chosen.\n");
    expect((await c.api.appointments.list.query({ clinic_id: c.clinic.id })).appointments).toEqual([]);
  });

  it("without --yes and with nobody to ask, prints the proposals and books nothing (exit 3)", async () => {
    const c = await bookableClinic(server);
    const run = captureIO();
    const code = await main(
      ["sports massage next thursday at 2pm", "--url", server.url(), "--token", c.agent.token, "--json"],
      { ...run.io, env: noEnv },
    );
    expect(code).toBe(3);
    const result = run.json();
    expect(result).toMatchObject({
      status: "not_booked",
      reason: "pass --yes to book the first proposal",
      wanted: { time_of_day: "14:00" },
    });
    const proposals = result.proposals as { start_local: string; in_wanted_time: boolean }[];
    expect(proposals.map((p) => p.start_local.slice(11))).toEqual(["14:00", "13:30", "14:30", "13:00", "15:00"]);
  });

  it("uses the provider named for an unassigned service when the caller is STAFF", async () => {
    const c = await bookableClinic(server);
    const run = captureIO();
    const code = await main(
      [
        "physiotherapy assessment with Ben next friday",
        "--url",
        server.url(),
        "--token",
        c.staff.token,
        "--clinic",
        c.clinic.id,
        "--yes",
        "--name",
        "Pat",
      ],
      { ...run.io, env: noEnv },
    );
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    expect(run.stdout()).toContain("Provider: Ben Koch.");
    const { appointments } = await c.api.appointments.list.query({ clinic_id: c.clinic.id });
    expect(appointments.map((a) => a.provider_name)).toEqual(["Ben Koch"]);
  });

  it("skips the provider lookup for a caller without STAFF and lets the server pick", async () => {
    const c = await bookableClinic(server);
    const run = captureIO();
    const code = await main(
      [
        "physiotherapy assessment with Ben next friday",
        "--url",
        server.url(),
        "--token",
        c.agent.token,
        "--yes",
        "--name",
        "Pat",
      ],
      { ...run.io, env: noEnv },
    );
    expect(code).toBe(0);
    expect(run.stdout()).toContain("Note: checking provider names needs the STAFF role; any provider will do.");
  });

  it("offers the next proposal when the chosen slot is taken meanwhile", async () => {
    const c = await bookableClinic(server);
    let stolen: string | undefined;
    // Another booking lands between the agent's availability query and its booking.
    const racingFetch = async (input: string | URL | Request, init?: RequestInit) => {
      const target = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (stolen === undefined && target.includes("appointments.book") && typeof init?.body === "string") {
        const body = JSON.parse(init.body) as Record<string, { json: { start: string } }>;
        stolen = body["0"]?.json.start ?? "";
        await c.api.appointments.book.mutate({
          clinic_id: c.clinic.id,
          service_id: c.services.sports.id,
          start: stolen,
          patient: { name: "Someone Else" },
        });
      }
      return fetch(input, init);
    };
    const run = captureIO({ fetch: racingFetch });
    const code = await main(
      ["sports massage next monday", "--url", server.url(), "--token", c.agent.token, "--yes", "--name", "Pat"],
      { ...run.io, env: noEnv },
    );
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    expect(run.stdout()).toMatch(/Mon \d+ \w+ \d{4} 09:00 was just taken\./);
    const { appointments } = await c.api.appointments.list.query({ clinic_id: c.clinic.id });
    expect(appointments.map((a) => [a.patient.name, a.start.toISOString() === stolen])).toEqual([
      ["Someone Else", true],
      ["Pat", false],
    ]);
  });

  it("says when no service matches (exit 3), with the closest names as JSON", async () => {
    const c = await bookableClinic(server);
    const run = captureIO();
    const code = await main(["a haircut tomorrow", "--url", server.url(), "--token", c.agent.token, "--json"], {
      ...run.io,
      env: noEnv,
    });
    expect(code).toBe(3);
    expect(run.json()).toMatchObject({ status: "no_matching_service", query: "haircut", closest: [], exit_code: 3 });
  });

  it("says which dates it looked at when there is no slot (exit 3)", async () => {
    const c = await bookableClinic(server);
    const run = captureIO();
    const code = await main(
      ["sports massage next sunday", "--url", server.url(), "--token", c.agent.token, "--yes", "--name", "Pat"],
      { ...run.io, env: noEnv },
    );
    expect(code).toBe(3);
    expect(run.stderr()).toMatch(
      /^No free slots for Sports Massage - Ben Koch with Ben Koch on Sun \d+ \w+ \d{4} \(clinic time, Europe\/Berlin\)\. Try other days\.\n$/,
    );
  });

  it("searches the next 7 days from today when the text names no date", async () => {
    const c = await bookableClinic(server);
    const run = captureIO();
    const code = await main(["sports massage", "--url", server.url(), "--token", c.agent.token, "--json"], {
      ...run.io,
      env: noEnv,
    });
    expect(code).toBe(3);
    const today = berlinToday();
    const wanted = run.json().wanted as { from: string; to: string; default_range: boolean };
    expect(wanted.from).toBe(today);
    expect(Math.round((Date.parse(wanted.to) - Date.parse(today)) / 86_400_000)).toBe(6);
    expect(wanted.default_range).toBe(true);
  });

  it("reports API errors with the contract code and detail (exit 1)", async () => {
    const c = await bookableClinic(server);
    const outsider = await newIdentity();
    const run = captureIO();
    const code = await main(
      [
        "sports massage",
        "--url",
        server.url(),
        "--token",
        outsider.token,
        "--clinic",
        c.clinic.id,
        "--yes",
        "--name",
        "Pat",
      ],
      { ...run.io, env: noEnv },
    );
    expect(code).toBe(1);
    expect(run.stderr()).toBe("error: FORBIDDEN: you are not a member of this clinic\n");

    const json = captureIO();
    expect(
      await main(["sports massage", "--url", server.url(), "--token", "not-a-jwt", "--json"], {
        ...json.io,
        env: noEnv,
      }),
    ).toBe(1);
    expect(json.json()).toMatchObject({ status: "error", code: "UNAUTHENTICATED", exit_code: 1 });
  });

  it("asks for --clinic when the caller is in several clinics, or none (exit 2)", async () => {
    const a = await bookableClinic(server);
    const b = await bookableClinic(server);
    const both = await newIdentity();
    for (const c of [a, b])
      await c.api.members.add.mutate({
        clinic_id: c.clinic.id,
        user_id: both.id,
        email: both.email,
        full_name: "Both Clinics",
      });
    const run = captureIO();
    expect(
      await main(["sports massage", "--url", server.url(), "--token", both.token], { ...run.io, env: noEnv }),
    ).toBe(2);
    expect(run.stderr()).toContain("error: you are a member of 2 clinics; pass one with --clinic\n");
    expect(run.stderr()).toContain(`--clinic ${a.clinic.id}`);

    const nobody = captureIO();
    expect(
      await main(["sports massage", "--url", server.url(), "--token", (await newIdentity()).token], {
        ...nobody.io,
        env: noEnv,
      }),
    ).toBe(2);
    expect(nobody.stderr()).toBe("error: you are not a member of any clinic; pass --clinic <uuid>\n");
  });

  it("takes url, token and clinic from the environment settings when the flags are absent", async () => {
    const c = await bookableClinic(server);
    const run = captureIO();
    const code = await main(["deep tissue massage with Anna next tuesday", "--yes", "--name", "Pat", "--json"], {
      ...run.io,
      env: { url: server.url(), token: c.agent.token, clinic: c.clinic.id },
    });
    expect(code).toBe(0);
    expect(run.json()).toMatchObject({ status: "booked", clinic: { id: c.clinic.id } });
  });
});

describe("booking agent, series (CONTRACT §14)", () => {
  const series = (c: Awaited<ReturnType<typeof bookableClinic>>, text: string, ...flags: string[]) => [
    text,
    "--url",
    server.url(),
    "--token",
    c.staff.token,
    "--clinic",
    c.clinic.id,
    ...flags,
  ];

  it("books every Tuesday at 10 for 3 weeks with --yes --json: a series of three appointments", async () => {
    const c = await bookableClinic(server);
    const run = captureIO();
    const code = await main(
      series(c, "sports massage with Ben every Tuesday at 10 for 3 weeks", "--yes", "--json", "--name", "Pat Doe"),
      { ...run.io, env: noEnv },
    );
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    const result = run.json();
    expect(result).toMatchObject({
      status: "series_booked",
      exit_code: 0,
      rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=3",
      description: "every Tuesday at 10:00, 3 times",
      service: { id: c.services.sports.id },
      skipped: [],
    });
    const occurrences = result.occurrences as { id: string; start_local: string; provider_name: string }[];
    expect(occurrences).toHaveLength(3);
    for (const o of occurrences) {
      expect(weekdayOf(o.start_local)).toBe(2);
      expect(o.start_local.slice(11)).toBe("10:00");
      expect(o.provider_name).toBe("Ben Koch");
    }
    const seriesId = (result.series as { id: string }).id;
    const { appointments } = await c.api.appointments.list.query({ clinic_id: c.clinic.id });
    expect(appointments.map((a) => [a.series_id, a.patient.name])).toEqual([
      [seriesId, "Pat Doe"],
      [seriesId, "Pat Doe"],
      [seriesId, "Pat Doe"],
    ]);
    expect((await c.api.series.get.query({ clinic_id: c.clinic.id, id: seriesId })).occurrences).toHaveLength(3);
  });

  it("shows the dates and asks before booking; a taken date is skipped and reported", async () => {
    const c = await bookableClinic(server);
    // A dry run through the agent: the dates, nothing booked.
    const look = captureIO();
    expect(
      await main(series(c, "sports massage every Thursday at 11 for 3 weeks", "--json"), { ...look.io, env: noEnv }),
    ).toBe(3);
    const preview = look.json();
    expect(preview).toMatchObject({ status: "not_booked", reason: "pass --yes to book the series" });
    const dates = (preview.series as { dates: { start: string; bookable: boolean }[] }).dates;
    expect(dates.map((d) => d.bookable)).toEqual([true, true, true]);
    const [, second] = dates;
    if (!second) throw new Error("no second date");
    await c.api.appointments.book.mutate({
      clinic_id: c.clinic.id,
      service_id: c.services.sports.id,
      start: new Date(second.start),
      patient: { name: "Someone Else" },
    });

    const run = captureIO({ answers: ["y"] });
    const code = await main(series(c, "sports massage every Thursday at 11 for 3 weeks", "--name", "Sam Patient"), {
      ...run.io,
      env: noEnv,
    });
    expect(run.stderr()).toBe("");
    expect(code).toBe(0);
    expect(run.questions).toEqual(["Book the 2 free dates and skip the other 1? [y/N] "]);
    const text = run.stdout();
    expect(text).toContain("Series: every Thursday at 11:00, 3 times, from Thu ");
    expect(text).toMatch(/ {2}2\. Thu \d+ \w+ \d{4} 11:00–11:30 {2}not free: /);
    expect(text).toMatch(
      /Booked a series: Sports Massage - Ben Koch, every Thursday at 11:00, 3 times \(Europe\/Berlin\)\./,
    );
    expect(text).toMatch(/Skipped 1 date \(not free\):\n {2}Thu \d+ \w+ \d{4} 11:00: /);
    expect(text).toMatch(/Series [0-9a-f-]{36} for Sam Patient: 2 appointments\.\n$/);
    const { appointments } = await c.api.appointments.list.query({ clinic_id: c.clinic.id });
    expect(appointments.map((a) => [a.patient.name, a.series_id !== null])).toEqual([
      ["Sam Patient", true],
      ["Someone Else", false],
      ["Sam Patient", true],
    ]);
  });

  it("books nothing with --all-or-nothing when a date is taken, or when the user says no", async () => {
    const c = await bookableClinic(server);
    // Sunday: the clinic is closed, so no date is free.
    const closed = captureIO();
    expect(
      await main(series(c, "sports massage every Sunday at 10 for 2 weeks", "--yes", "--name", "Pat"), {
        ...closed.io,
        env: noEnv,
      }),
    ).toBe(3);
    expect(closed.stderr()).toBe("Nothing booked: none of the series' 2 dates is free.\n");

    const strict = captureIO();
    expect(
      await main(
        series(c, "sports massage every day at 10 for 7 days", "--yes", "--all-or-nothing", "--name", "Pat", "--json"),
        { ...strict.io, env: noEnv },
      ),
    ).toBe(3);
    expect(strict.json()).toMatchObject({
      status: "not_booked",
      reason: "2 of the series' 7 dates are not free (--all-or-nothing)",
      series: { rrule: "FREQ=DAILY;COUNT=7", mode: "skip_unavailable" },
    });

    const no = captureIO({ answers: ["n"] });
    expect(
      await main(series(c, "sports massage every Monday at 9 for 2 weeks", "--name", "Pat"), { ...no.io, env: noEnv }),
    ).toBe(3);
    expect(no.questions).toEqual(["Book these 2 appointments? [y/N] "]);
    expect(no.stderr()).toBe("Nothing booked: series not confirmed.\n");
    expect((await c.api.appointments.list.query({ clinic_id: c.clinic.id })).appointments).toEqual([]);
  });

  it("says what is missing from a series' text (exit 2), and that a series needs STAFF (exit 1)", async () => {
    const c = await bookableClinic(server);
    const noTime = captureIO();
    expect(
      await main(series(c, "sports massage every Tuesday for 3 weeks", "--yes", "--name", "Pat"), {
        ...noTime.io,
        env: noEnv,
      }),
    ).toBe(2);
    expect(noTime.stderr()).toBe('error: say at what time the series is, e.g. "every Tuesday at 9 for 10 weeks"\n');

    const agent = captureIO();
    const code = await main(
      [
        "sports massage every Tuesday at 10 for 3 weeks",
        "--url",
        server.url(),
        "--token",
        c.agent.token,
        "--yes",
        "--name",
        "Pat",
      ],
      { ...agent.io, env: noEnv },
    );
    expect(code).toBe(1);
    expect(agent.stderr()).toMatch(/^error: FORBIDDEN: booking a series needs the STAFF role in this clinic \(/);
  });
});

describe("booking agent, failures before any booking", () => {
  it("answers usage errors with exit 2 and --help with exit 0", async () => {
    const cases: [string[], RegExp][] = [
      [["sports massage"], /an access token is needed/],
      [["--token", "t"], /say what to book/],
      [["massage", "--token", "t", "--clinic", "not-a-uuid"], /--clinic must be a clinic UUID/],
      [["massage", "--token", "t", "--phone", "0301234"], /--phone must be an E\.164 number/],
      [["massage", "--token", "t", "--yes"], /--name is required with --yes/],
      [["massage", "--token", "t", "--frobnicate"], /Unknown option '--frobnicate'/],
    ];
    for (const [argv, message] of cases) {
      const run = captureIO();
      expect(await main(argv, { ...run.io, env: noEnv })).toBe(2);
      expect(run.stderr()).toMatch(message);
    }
    const help = captureIO();
    expect(await main(["--help"], { ...help.io, env: noEnv })).toBe(0);
    expect(help.stdout()).toContain("Exit codes: 0 booked, 1 error, 2 usage, 3 nothing booked");
  });

  it("drops the `--` that pnpm passes through before the text", async () => {
    const run = captureIO();
    expect(await main(["--", "massage", "--json"], { ...run.io, env: noEnv })).toBe(2);
    expect(run.json()).toEqual({
      status: "usage_error",
      message: "an access token is needed: --token <jwt> (or CLINIC_TOKEN)",
      exit_code: 2,
    });
  });

  it("says so when the server cannot be reached (exit 1)", async () => {
    const run = captureIO();
    const code = await main(
      [
        "massage",
        "--url",
        "http://127.0.0.1:9",
        "--token",
        "t",
        "--clinic",
        crypto.randomUUID(),
        "--yes",
        "--name",
        "Pat",
      ],
      { ...run.io, env: noEnv },
    );
    expect(code).toBe(1);
    expect(run.stderr()).toMatch(/^error: NETWORK: cannot reach the server at http:\/\/127\.0\.0\.1:9/);
  });
});
