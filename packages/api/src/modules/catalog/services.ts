import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { type Db, services } from "@clinic/db";
import { DomainError, notFound, returnedRow } from "../../errors.ts";
import { type Change, recordChanges } from "../events/index.ts";
import { invalidateAvailability } from "../availability/index.ts";
import { requireProvider } from "../members/index.ts";
import type { Question } from "../../schemas/questions.ts";
import {
  type ServiceRow,
  type ServiceView,
  getService,
  selectServices,
  servicePages,
  servicesByIds,
  toService,
} from "./view.ts";

export interface ServiceListQuery {
  clinicId: string;
  /** Only services assigned to this provider (user id). */
  providerId?: string | undefined;
  includeInactive: boolean;
  limit: number;
  cursor?: string | undefined;
}

/** Live services of a clinic ordered by name then id, keyset-paginated. */
export async function listServices(
  db: Db,
  query: ServiceListQuery,
): Promise<{ services: ServiceView[]; next_cursor: string | null }> {
  const rows: ServiceRow[] = await selectServices(db, query.clinicId)
    .where(
      query.providerId !== undefined ? eq(services.providerId, query.providerId) : undefined,
      query.includeInactive ? undefined : eq(services.isActive, true),
      servicePages.after(query.cursor),
    )
    .orderBy(...servicePages.orderBy)
    .limit(query.limit + 1);
  const page = servicePages.page(rows, query.limit);
  return { services: page.items.map(toService), next_cursor: page.next_cursor };
}

/** Who makes a change, for the audit trail. */
export interface Actor {
  email: string;
}

const eventOf = {
  SERVICE_CREATED: "service.created",
  SERVICE_UPDATED: "service.updated",
  SERVICE_DELETED: "service.deleted",
} as const;

/** A service change: its event (the service as it is after) and its audit entry. */
function serviceChange(
  action: keyof typeof eventOf,
  service: ServiceView,
  actor: Actor,
  details: Record<string, unknown>,
): Change {
  return {
    type: eventOf[action],
    data: service,
    audit: { action, resourceId: service.id, userEmail: actor.email, details },
  };
}

/** The booking rules of a service (docs/availability.md#booking-rules), as the API names them. */
export interface ServiceRules {
  buffer_before_min?: number | undefined;
  buffer_after_min?: number | undefined;
  slot_step_min?: number | null | undefined;
  min_notice_min?: number | undefined;
  booking_horizon_days?: number | null | undefined;
  /** Patients' own bookings wait for the clinic's confirmation (`pending`, §13). */
  requires_confirmation?: boolean | undefined;
  /** Seats of one slot: a group session when > 1 (§14). */
  capacity?: number | undefined;
  /** Kinds of resources a booking needs, one of each (§14), sorted and distinct. */
  required_resource_kinds?: string[] | undefined;
}

export interface NewService extends ServiceRules {
  name: string;
  /** What a booking of it asks (§19), checked by questionsInput; default none. */
  questions?: Question[] | undefined;
  duration_min: number;
  price?: string | null | undefined;
  provider_id?: string | null | undefined;
  is_active: boolean;
}

/** API field → column of the fields that are stored as given. */
const plainFields = {
  name: "name",
  duration_min: "durationMin",
  price: "price",
  buffer_before_min: "bufferBeforeMin",
  buffer_after_min: "bufferAfterMin",
  slot_step_min: "slotStepMin",
  min_notice_min: "minNoticeMin",
  booking_horizon_days: "bookingHorizonDays",
  requires_confirmation: "requiresConfirmation",
  capacity: "capacity",
  required_resource_kinds: "requiredResourceKinds",
  questions: "questions",
} as const satisfies Record<string, keyof typeof services.$inferSelect>;
type PlainField = keyof typeof plainFields;
const ruleFields: readonly PlainField[] = [
  "buffer_before_min",
  "buffer_after_min",
  "slot_step_min",
  "min_notice_min",
  "booking_horizon_days",
  "capacity",
  "required_resource_kinds",
];

/**
 * Equal stored values: scalars by identity, arrays (required_resource_kinds, questions) element by
 * element, a question by its JSON (its keys are always written in one order, by questionsInput).
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b))
    return (
      a.length === b.length &&
      a.every((item, i) => item === b[i] || JSON.stringify(sortedKeys(item)) === JSON.stringify(sortedKeys(b[i])))
    );
  return a === b;
}

/** An object with its keys sorted (jsonb gives them back in its own order). */
function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Fields whose change changes what availability returns. */
const availabilityFields = new Set<string>(["provider_id", "duration_min", "is_active", ...ruleFields]);

/** Creates a service with its SERVICE_CREATED audit entry, in one transaction. */
export async function createService(db: Db, clinicId: string, actor: Actor, input: NewService): Promise<ServiceView> {
  return db.transaction(async (tx) => {
    const providerId = input.provider_id ?? null;
    const providerName =
      providerId === null ? null : await requireProvider(tx, clinicId, providerId, "NOT_A_PROVIDER", { lock: true });
    const price = input.price ?? null;
    const row = returnedRow(
      await tx
        .insert(services)
        .values({
          clinicId,
          name: input.name,
          durationMin: input.duration_min,
          price,
          providerId,
          isActive: input.is_active,
          bufferBeforeMin: input.buffer_before_min,
          bufferAfterMin: input.buffer_after_min,
          slotStepMin: input.slot_step_min,
          minNoticeMin: input.min_notice_min,
          bookingHorizonDays: input.booking_horizon_days,
          requiresConfirmation: input.requires_confirmation,
          capacity: input.capacity,
          requiredResourceKinds: input.required_resource_kinds,
          questions: input.questions,
        })
        .returning({ id: services.id }),
      "service",
    );
    // At creation "changed" means "set": the always-present fields, plus price / provider_id when
    // given a value, and the booking rules that were given.
    const changedFields = [
      "name",
      "duration_min",
      ...(price !== null ? ["price"] : []),
      ...(providerId !== null ? ["provider_id"] : []),
      "is_active",
      ...ruleFields.filter((field) => input[field] !== undefined),
      ...(input.questions !== undefined && input.questions.length > 0 ? ["questions"] : []),
    ];
    await invalidateAvailability(tx, clinicId, [clinicId]);
    const created = await getService(tx, clinicId, row.id);
    await recordChanges(tx, clinicId, [
      serviceChange("SERVICE_CREATED", created, actor, {
        changed_fields: changedFields,
        ...(providerId !== null
          ? { old_provider_id: null, new_provider_id: providerId, provider_name: providerName }
          : {}),
      }),
    ]);
    return created;
  });
}

export interface ServicePatch extends ServiceRules {
  name?: string | undefined;
  /** Replaces the questions; appointments keep the answers as they were asked. */
  questions?: Question[] | undefined;
  duration_min?: number | undefined;
  price?: string | null | undefined;
  provider_id?: string | null | undefined;
  is_active?: boolean | undefined;
}

/** The live service row, locked for the rest of the transaction; 404 when absent. */
async function lockService(db: Db, clinicId: string, serviceId: string) {
  const [row] = await db
    .select()
    .from(services)
    .where(and(eq(services.clinicId, clinicId), eq(services.id, serviceId), isNull(services.deletedAt)))
    .for("update");
  if (!row) throw notFound("service");
  return row;
}

/**
 * Applies a partial update (assign / reassign / unassign included) with its SERVICE_UPDATED
 * audit entry. Only fields whose value actually differs count as changed; a patch that changes
 * nothing writes nothing (no audit entry, updated_at kept) and returns the service as it is.
 */
export async function updateService(
  db: Db,
  clinicId: string,
  serviceId: string,
  actor: Actor,
  patch: ServicePatch,
): Promise<ServiceView> {
  return db.transaction(async (tx) => {
    const current = await lockService(tx, clinicId, serviceId);
    const set: Record<string, unknown> = {};
    const changed: string[] = [];
    for (const [field, column] of Object.entries(plainFields) as [PlainField, (typeof plainFields)[PlainField]][]) {
      const value = patch[field];
      if (value !== undefined && !sameValue(value, current[column])) {
        set[column] = value;
        changed.push(field);
      }
    }
    let providerDetails: Record<string, unknown> = {};
    if (patch.provider_id !== undefined && patch.provider_id !== current.providerId) {
      const providerName =
        patch.provider_id === null
          ? null
          : await requireProvider(tx, clinicId, patch.provider_id, "NOT_A_PROVIDER", { lock: true });
      set.providerId = patch.provider_id;
      changed.push("provider_id");
      providerDetails = {
        old_provider_id: current.providerId,
        new_provider_id: patch.provider_id,
        provider_name: providerName,
      };
    }
    if (patch.is_active !== undefined && patch.is_active !== current.isActive) {
      // Re-activating a service whose provider has lost the provider flag meanwhile would make
      // it bookable with a non-provider; refuse it like an assignment to a non-provider.
      if (patch.is_active && set.providerId === undefined && current.providerId !== null) {
        await requireProvider(tx, clinicId, current.providerId, "NOT_A_PROVIDER", { lock: true });
      }
      set.isActive = patch.is_active;
      changed.push("is_active");
    }
    if (changed.length === 0) return getService(tx, clinicId, serviceId);
    await tx
      .update(services)
      .set(set)
      .where(and(eq(services.clinicId, clinicId), eq(services.id, serviceId)));
    if (changed.some((field) => availabilityFields.has(field))) {
      await invalidateAvailability(tx, clinicId, [clinicId]);
    }
    const updated = await getService(tx, clinicId, serviceId);
    await recordChanges(tx, clinicId, [
      serviceChange("SERVICE_UPDATED", updated, actor, { changed_fields: changed, ...providerDetails }),
    ]);
    return updated;
  });
}

/**
 * Soft-deletes a service (sets deleted_at): it leaves every read, list, search and booking, while
 * appointments keep referencing it. Writes SERVICE_DELETED in the same transaction.
 */
export async function deleteService(db: Db, clinicId: string, serviceId: string, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    await lockService(tx, clinicId, serviceId);
    // The event carries the service as it was last seen: deleted services are not read back.
    const last = await getService(tx, clinicId, serviceId);
    await tx
      .update(services)
      .set({ deletedAt: sql`now()` })
      .where(and(eq(services.clinicId, clinicId), eq(services.id, serviceId)));
    await invalidateAvailability(tx, clinicId, [clinicId]);
    await recordChanges(tx, clinicId, [
      serviceChange("SERVICE_DELETED", last, actor, { changed_fields: ["deleted_at"] }),
    ]);
  });
}

/**
 * Assigns all selected services to one provider, all or nothing: 422 NOT_A_PROVIDER, 404 when an
 * id is not a live service of this clinic, 409 ALREADY_ASSIGNED when one is assigned to another
 * provider (reassigning is a PATCH). Services already assigned to this provider stay untouched;
 * each service that changes gets its own SERVICE_UPDATED entry. Returns the selected services.
 */
export async function bulkAssignServices(
  db: Db,
  clinicId: string,
  actor: Actor,
  input: { provider_id: string; service_ids: readonly string[] },
): Promise<ServiceView[]> {
  const ids = [...new Set(input.service_ids)].sort();
  return db.transaction(async (tx) => {
    const providerName = await requireProvider(tx, clinicId, input.provider_id, "NOT_A_PROVIDER", { lock: true });
    // Lock in id order so that two bulk assignments over overlapping sets cannot deadlock.
    const rows = await tx
      .select({ id: services.id, providerId: services.providerId })
      .from(services)
      .where(and(eq(services.clinicId, clinicId), inArray(services.id, ids), isNull(services.deletedAt)))
      .orderBy(asc(services.id))
      .for("update");
    const found = new Set(rows.map((r) => r.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new DomainError("NOT_FOUND", `service(s) not found: ${missing.join(", ")}`, {
        extra: { service_ids: missing },
      });
    }
    const taken = rows.filter((r) => r.providerId !== null && r.providerId !== input.provider_id).map((r) => r.id);
    if (taken.length > 0) {
      throw new DomainError(
        "ALREADY_ASSIGNED",
        `service(s) already assigned to another provider: ${taken.join(", ")}; reassign them one by one with PATCH`,
        {
          extra: { service_ids: taken },
        },
      );
    }
    const toAssign = rows.filter((r) => r.providerId === null).map((r) => r.id);
    if (toAssign.length > 0) {
      await tx
        .update(services)
        .set({ providerId: input.provider_id })
        .where(and(eq(services.clinicId, clinicId), inArray(services.id, toAssign)));
      await invalidateAvailability(tx, clinicId, [clinicId]);
    }
    const after = await servicesByIds(tx, clinicId, ids);
    const assigned = new Set(toAssign);
    await recordChanges(
      tx,
      clinicId,
      after
        .filter((service) => assigned.has(service.id))
        .map((service) =>
          serviceChange("SERVICE_UPDATED", service, actor, {
            changed_fields: ["provider_id"],
            old_provider_id: null,
            new_provider_id: input.provider_id,
            provider_name: providerName,
          }),
        ),
    );
    return after;
  });
}
