// A standard FHIR client library (fhir-kit-client) against a listening server: capability
// statement, search of schedules and slots with paging, $find → $book, PATCH and read
// (CONTRACT §16: "a standard FHIR client library can search, find and book").
import { beforeAll, describe, expect, it } from "vitest";
import { Client } from "fhir-kit-client";
import type { Appointment, Bundle, CapabilityStatement, Schedule, Slot } from "fhir/r4.js";
import { addService, bookableClinic } from "@clinic/api/testing";
import { useTestApp } from "./helpers.ts";
import { assertValidFhir } from "./fhirValidator.ts";

const now = new Date("2027-03-15T08:00:00.000Z");
const t = useTestApp({ now: () => now });
let baseUrl = "";
beforeAll(async () => {
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  const address = t.app.server.address();
  baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/fhir/R4`;
});

/** The library's loose resource, checked by the validator (then read as the R4 type). */
function valid(resource: unknown): unknown {
  assertValidFhir(resource);
  return resource;
}

describe("a FHIR client library against the facade", () => {
  it("reads metadata, searches schedules and slots (paging), finds and books, checks in with If-Match", async () => {
    const c = await bookableClinic(t.handle.db);
    const service = await addService(t.handle.db, c.clinicId, { name: "Checkup", providerId: c.provider.id });
    const client = new Client({ baseUrl, bearerToken: c.staff.token });

    const capability = valid(await client.capabilityStatement()) as CapabilityStatement;
    expect(
      capability.rest?.[0]?.resource?.find((r) => r.type === "Appointment")?.operation?.map((o) => o.name),
    ).toEqual(["find", "hold", "book"]);

    const schedules = valid(
      await client.search({
        resourceType: "Schedule",
        searchParams: { actor: `Location/${c.clinicId}`, "service-type": service },
      }),
    ) as Bundle;
    const schedule = schedules.entry?.[0]?.resource as Schedule | undefined;
    if (!schedule?.id) throw new Error("no schedule");

    const slotsPage = valid(
      await client.search({
        resourceType: "Slot",
        searchParams: {
          schedule: `Schedule/${schedule.id}`,
          "service-type": service,
          start: ["ge2027-03-15T09:00:00Z", "lt2027-03-15T12:00:00Z"],
          _count: 4,
        },
      }),
    ) as Bundle;
    expect(slotsPage.total).toBe(6);
    const next = client.nextPage({ bundle: slotsPage as never });
    if (!next) throw new Error("no next page");
    const rest = valid(await next) as Bundle;
    expect(rest.entry?.map((e) => (e.resource as Slot).start)).toEqual([
      "2027-03-15T11:00:00.000Z",
      "2027-03-15T11:30:00.000Z",
    ]);

    const found = valid(
      await client.operation({
        resourceType: "Appointment",
        name: "$find",
        input: {
          resourceType: "Parameters",
          parameter: [
            { name: "start", valueDateTime: "2027-03-15T11:00:00Z" },
            { name: "end", valueDateTime: "2027-03-15T12:00:00Z" },
            { name: "service-type", valueCoding: { system: "urn:clinic-scheduling:service", code: service } },
            { name: "practitioner", valueReference: { reference: schedule.actor[0]?.reference ?? "" } },
          ],
        },
      }),
    ) as Bundle;
    const proposal = found.entry?.[0]?.resource as Appointment | undefined;
    if (!proposal) throw new Error("nothing proposed");
    expect(proposal).toMatchObject({ status: "proposed", start: "2027-03-15T11:00:00.000Z" });

    const booked = valid(
      await client.operation({
        resourceType: "Appointment",
        name: "$book",
        input: {
          ...proposal,
          participant: [...proposal.participant, { actor: { display: "Pat Patient" }, status: "accepted" }],
        },
        options: { headers: { "Idempotency-Key": `kit-${c.clinicId}` } },
      }),
    ) as Appointment;
    expect(booked).toMatchObject({ status: "booked", start: "2027-03-15T11:00:00.000Z" });
    if (!booked.id) throw new Error("no id");

    const arrived = valid(
      await client.patch({
        resourceType: "Appointment",
        id: booked.id,
        jsonPatch: [{ op: "replace", path: "/status", value: "arrived" }],
        options: { headers: { "If-Match": `W/"${booked.meta?.versionId ?? ""}"` } },
      }),
    ) as Appointment;
    expect(arrived.status).toBe("arrived");
    const read = valid(await client.read({ resourceType: "Appointment", id: booked.id })) as Appointment;
    expect(read).toMatchObject({ status: "arrived", meta: { versionId: arrived.meta?.versionId } });

    // An error reaches the library as the OperationOutcome with our code (a clinic the caller is not in).
    const failure = await client
      .read({ resourceType: "Appointment", id: "0".repeat(64) })
      .then(() => undefined)
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({
      response: {
        status: 403,
        data: { resourceType: "OperationOutcome", issue: [{ details: { text: "FORBIDDEN" } }] },
      },
    });
  });
});
