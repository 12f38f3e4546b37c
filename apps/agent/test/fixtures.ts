// A running server on the test database and a bookable clinic built with the shared fixtures.
import { beforeAll } from "vitest";
import { createClient, type ClinicClient } from "@clinic/client";
import { addHours, addProvider, addService, clinicFixture } from "@clinic/api/testing";
import { useTestApp } from "@clinic/server/test-helpers";
import type { AgentIO } from "../src/main.ts";

/** Starts the app of this test file on a free port; `url()` is its base URL once listening. */
export function useServer() {
  const t = useTestApp();
  let url: string | undefined;
  beforeAll(async () => {
    url = await t.app.listen({ port: 0, host: "127.0.0.1" });
  });
  return {
    url: () => {
      if (!url) throw new Error("server not listening yet");
      return url;
    },
    get db() {
      return t.handle.db;
    },
  };
}

type Server = ReturnType<typeof useServer>;

/**
 * A Berlin clinic open Mon–Fri 09:00–17:00: Anna Berg and Ben Koch approved and working those
 * hours, "Deep Tissue Massage - Anna Berg" (60 min, Anna's), "Sports Massage - Ben Koch" (30 min,
 * Ben's) and an unassigned "Physiotherapy Assessment" (45 min); a BOOKING_AGENT member (custom
 * role: member rights only), a STAFF member, and `api`, a client acting as the CLINIC_ADMIN.
 */
export async function bookableClinic(server: Server) {
  const { db } = server;
  const fixture = await clinicFixture(db, { timezone: "Europe/Berlin" });
  const clinicId = fixture.clinicId;
  const weekdays = [1, 2, 3, 4, 5];
  await addHours(db, clinicId, null, weekdays, "09:00", "17:00");
  const provider = async (fullName: string) => {
    const who = await addProvider(db, clinicId, fullName);
    await addHours(db, clinicId, who.id, weekdays, "09:00", "17:00");
    return who;
  };
  const anna = await provider("Anna Berg");
  const ben = await provider("Ben Koch");
  const service = async (name: string, durationMin: number, providerId: string | null) => ({
    id: await addService(db, clinicId, { name, durationMin, providerId }),
  });
  return {
    api: createClient({ url: server.url(), token: fixture.admin.token }) satisfies ClinicClient,
    clinic: { id: clinicId },
    anna,
    ben,
    services: {
      deepTissue: await service("Deep Tissue Massage - Anna Berg", 60, anna.id),
      sports: await service("Sports Massage - Ben Koch", 30, ben.id),
      assessment: await service("Physiotherapy Assessment", 45, null),
    },
    agent: fixture.custom,
    staff: fixture.staff,
  };
}

/** Captures what the agent writes; `answers` are the user's replies to its questions, in order. */
export function captureIO(options: { answers?: string[]; fetch?: AgentIO["fetch"] } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const questions: string[] = [];
  const answers = [...(options.answers ?? [])];
  const io: AgentIO = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    ...(options.answers
      ? {
          ask: (question: string) => {
            questions.push(question);
            return Promise.resolve(answers.shift() ?? "q");
          },
        }
      : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  return {
    io,
    stdout: () => out.join(""),
    stderr: () => err.join(""),
    questions,
    /** The --json result. */
    json: (): Record<string, unknown> => JSON.parse(out.join("")) as Record<string, unknown>,
  };
}

/** Today's date in Berlin. */
export function berlinToday(): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: "Europe/Berlin",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date());
}
