import { describe, expect, it } from "vitest";
import { addHours, addProvider, addResource, addService, addWebhook, clinicFixture } from "@clinic/api/testing";
import { request, useTestApp } from "./helpers.ts";

// An empty PATCH changes nothing: 200 with the resource as it was (updated_at too), no audit entry,
// no event. Checked for every PATCH route the served OpenAPI document lists, with `{}` and with
// `{}` after a UTF-8 byte-order mark.
const t = useTestApp();

type Clinic = Awaited<ReturnType<typeof clinicFixture>>;
type Resource = Record<string, unknown> & { updated_at: string };

/** What a PATCH route needs: the values of its path and query parameters, and a read of its resource. */
interface Target {
  params: Record<string, string>;
  read: () => Promise<Resource>;
}

async function get(c: Clinic, url: string): Promise<unknown> {
  const response = await request(t.app, { method: "GET", url, token: c.admin.token });
  expect(response.statusCode, `GET ${url}: ${response.body}`).toBe(200);
  return response.json();
}

async function one(c: Clinic, url: string, key: string, matches: (r: Resource) => boolean): Promise<Resource> {
  const list = (await get(c, url)) as Record<string, Resource[]>;
  const found = list[key]?.find(matches);
  if (!found) throw new Error(`no matching element of ${key} in GET ${url}`);
  return found;
}

/** The resource each PATCH path of the document edits, created with the fixtures. */
const targets: Record<string, (c: Clinic) => Promise<Target>> = {
  "/v1/clinics/{clinic_id}": (c) =>
    Promise.resolve({
      params: { clinic_id: c.clinicId },
      read: async () => (await get(c, `/v1/clinics/${c.clinicId}`)) as Resource,
    }),
  "/v1/clinics/{clinic_id}/members/{user_id}": (c) =>
    Promise.resolve({
      params: { clinic_id: c.clinicId, user_id: c.staff.id },
      read: () => one(c, `/v1/clinics/${c.clinicId}/members`, "members", (m) => m.user_id === c.staff.id),
    }),
  "/v1/services/{id}": async (c) => {
    const id = await addService(t.handle.db, c.clinicId, { name: "Check-up" });
    return {
      params: { id, clinic_id: c.clinicId },
      read: async () => (await get(c, `/v1/services/${id}?clinic_id=${c.clinicId}`)) as Resource,
    };
  },
  "/v1/clinics/{clinic_id}/work_hours/{work_hour_id}": async (c) => {
    await addHours(t.handle.db, c.clinicId, null, [1], "09:00", "17:00");
    const url = `/v1/clinics/${c.clinicId}/work_hours`;
    const hour = await one(c, url, "work_hours", () => true);
    const id = String(hour.id);
    return {
      params: { clinic_id: c.clinicId, work_hour_id: id, if_updated_at: hour.updated_at },
      read: () => one(c, url, "work_hours", (h) => h.id === id),
    };
  },
  "/v1/providers/{provider_id}/work_hours/{work_hour_id}": async (c) => {
    const provider = await addProvider(t.handle.db, c.clinicId, "Anna Provider");
    await addHours(t.handle.db, c.clinicId, provider.id, [2], "09:00", "12:00");
    const url = `/v1/providers/${provider.id}/work_hours?clinic_id=${c.clinicId}`;
    const hour = await one(c, url, "work_hours", () => true);
    const id = String(hour.id);
    return {
      params: { provider_id: provider.id, work_hour_id: id, clinic_id: c.clinicId, if_updated_at: hour.updated_at },
      read: () => one(c, url, "work_hours", (h) => h.id === id),
    };
  },
  "/v1/clinics/{clinic_id}/webhooks/{id}": async (c) => {
    const id = await addWebhook(t.handle.db, c.clinicId, { description: "Front desk" });
    return {
      params: { clinic_id: c.clinicId, id },
      read: () => one(c, `/v1/clinics/${c.clinicId}/webhooks`, "webhooks", (h) => h.id === id),
    };
  },
  "/v1/clinics/{clinic_id}/resources/{id}": async (c) => {
    const id = await addResource(t.handle.db, c.clinicId, { name: "Room 1" });
    return {
      params: { clinic_id: c.clinicId, id },
      read: () => one(c, `/v1/clinics/${c.clinicId}/resources`, "resources", (r) => r.id === id),
    };
  },
};

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
}

/** The document's PATCH routes with their parameters. */
async function patchRoutes(): Promise<{ path: string; parameters: Parameter[] }[]> {
  const response = await request(t.app, { method: "GET", url: "/v1/openapi.json" });
  expect(response.statusCode).toBe(200);
  const document = response.json<{ paths: Record<string, { patch?: { parameters?: Parameter[] } }> }>();
  return Object.entries(document.paths).flatMap(([path, item]) =>
    item.patch ? [{ path, parameters: item.patch.parameters ?? [] }] : [],
  );
}

/** The concrete URL of a route: its path parameters filled in, its query parameters appended. */
function urlOf(route: { path: string; parameters: Parameter[] }, params: Record<string, string>): string {
  const query = new URLSearchParams();
  let url = route.path;
  for (const parameter of route.parameters) {
    const value = params[parameter.name];
    if (value === undefined) {
      if (parameter.in === "path" || parameter.required === true)
        throw new Error(`${route.path}: no value for ${parameter.in} parameter ${parameter.name}`);
      continue;
    }
    if (parameter.in === "path") url = url.replace(`{${parameter.name}}`, encodeURIComponent(value));
    else if (parameter.in === "query") query.set(parameter.name, value);
  }
  const search = query.toString();
  return search ? `${url}?${search}` : url;
}

const utf8Bom = Buffer.from([0xef, 0xbb, 0xbf]);
const bodies: [string, Buffer][] = [
  ["{}", Buffer.from("{}")],
  ["BOM + {}", Buffer.concat([utf8Bom, Buffer.from("{}")])],
];

describe("an empty PATCH changes nothing", () => {
  it("every PATCH route of the OpenAPI document has a resource to try", async () => {
    const paths = (await patchRoutes()).map((r) => r.path).sort();
    expect(paths.length).toBeGreaterThan(0);
    expect(Object.keys(targets).sort()).toEqual(paths);
  });

  it("answers 200 with the unchanged resource for {} and BOM + {} on every PATCH route, with no audit entry and no event", async () => {
    const failures: string[] = [];
    for (const route of await patchRoutes()) {
      const setup = targets[route.path];
      if (!setup) {
        failures.push(`${route.path}: no resource to try`);
        continue;
      }
      const c = await clinicFixture(t.handle.db);
      const target = await setup(c);
      const url = urlOf(route, target.params);
      const before = await target.read();
      const audit = await get(c, `/v1/audit_log?clinic_id=${c.clinicId}`);
      const events = await get(c, `/v1/events?clinic_id=${c.clinicId}`);
      for (const [name, payload] of bodies) {
        const response = await t.app.inject({
          method: "PATCH",
          url,
          cookies: { access_token: c.admin.token },
          headers: { "content-type": "application/json" },
          payload,
        });
        if (response.statusCode !== 200) {
          failures.push(`PATCH ${route.path} with ${name}: ${String(response.statusCode)} ${response.body}`);
          continue;
        }
        const answered = response.json<Resource>();
        if (JSON.stringify(answered) !== JSON.stringify(before))
          failures.push(`PATCH ${route.path} with ${name} answered ${response.body}, not ${JSON.stringify(before)}`);
        const after = await target.read();
        if (after.updated_at !== before.updated_at)
          failures.push(
            `PATCH ${route.path} with ${name} moved updated_at from ${before.updated_at} to ${after.updated_at}`,
          );
        if (JSON.stringify(after) !== JSON.stringify(before))
          failures.push(`PATCH ${route.path} with ${name} changed the resource to ${JSON.stringify(after)}`);
        if (JSON.stringify(await get(c, `/v1/audit_log?clinic_id=${c.clinicId}`)) !== JSON.stringify(audit))
          failures.push(`PATCH ${route.path} with ${name} wrote an audit entry`);
        if (JSON.stringify(await get(c, `/v1/events?clinic_id=${c.clinicId}`)) !== JSON.stringify(events))
          failures.push(`PATCH ${route.path} with ${name} recorded an event`);
      }
    }
    expect(failures).toEqual([]);
  });
});
