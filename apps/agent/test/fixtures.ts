// A running server on the test database and a bookable clinic, made through the client.
import { beforeAll } from "vitest";
import { createClient, type ClinicClient } from "@clinic/client";
import { mintToken } from "@clinic/api";
import { testSecret, useTestApp } from "@clinic/server/test-helpers";
import type { AgentIO } from "../src/main.ts";

/** Starts the app of this test file on a free port; `url()` is its base URL once listening. */
export function useServer(): { url: () => string } {
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
  };
}

export interface Person {
  id: string;
  email: string;
  token: string;
}

/** A fresh identity with a token signed by the test secret. */
export async function person(options: { admin?: boolean } = {}): Promise<Person> {
  const id = crypto.randomUUID();
  const email = `p-${id}@test.example`;
  return { id, email, token: await mintToken(testSecret, { sub: id, email, ...(options.admin ? { roles: ["ADMIN"] } : {}) }) };
}

/**
 * A Berlin clinic: Anna Berg and Ben Koch approved, both working Mon–Fri 09:00–17:00 (as is the
 * clinic), "Deep Tissue Massage - Anna Berg" (60 min, Anna's), "Sports Massage - Ben Koch"
 * (30 min, Ben's) and an unassigned "Physiotherapy Assessment" (45 min); a BOOKING_AGENT member
 * (custom role: member rights only) and a STAFF member.
 */
export async function bookableClinic(url: string) {
  const admin = await person({ admin: true });
  const api: ClinicClient = createClient({ url, token: admin.token });
  const clinic = await api.clinics.create.mutate({ name: `Agent E2E ${crypto.randomUUID()}`, timezone: "Europe/Berlin" });
  const provider = async (fullName: string) => {
    const who = await person();
    await api.members.add.mutate({ clinic_id: clinic.id, user_id: who.id, email: who.email, full_name: fullName, is_provider: true });
    await api.providers.approve.mutate({ clinic_id: clinic.id, user_id: who.id });
    for (const weekday of [1, 2, 3, 4, 5]) {
      await api.workHours.createProvider.mutate({ clinic_id: clinic.id, provider_id: who.id, weekday, opens_at: "09:00", closes_at: "17:00" });
    }
    return who;
  };
  for (const weekday of [1, 2, 3, 4, 5]) {
    await api.workHours.createClinic.mutate({ clinic_id: clinic.id, weekday, opens_at: "09:00", closes_at: "17:00" });
  }
  const anna = await provider("Anna Berg");
  const ben = await provider("Ben Koch");
  const deepTissue = await api.services.create.mutate({ clinic_id: clinic.id, name: "Deep Tissue Massage - Anna Berg", duration_min: 60, provider_id: anna.id });
  const sports = await api.services.create.mutate({ clinic_id: clinic.id, name: "Sports Massage - Ben Koch", duration_min: 30, provider_id: ben.id });
  const assessment = await api.services.create.mutate({ clinic_id: clinic.id, name: "Physiotherapy Assessment", duration_min: 45, provider_id: null });
  const member = async (role: string) => {
    const who = await person();
    await api.members.add.mutate({ clinic_id: clinic.id, user_id: who.id, email: who.email, full_name: `${role} Person`, clinic_role: role });
    return who;
  };
  return { api, clinic, anna, ben, services: { deepTissue, sports, assessment }, agent: await member("BOOKING_AGENT"), staff: await member("STAFF") };
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
  return new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
}
