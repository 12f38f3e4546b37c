import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  bulkAssignServices,
  createService,
  deleteService,
  getService,
  listServices,
  searchServices,
  serviceOutput,
  updateService,
} from "../modules/catalog/index.ts";
import { requiredResourceKindsInput } from "../modules/resources/index.ts";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import { questionsInput } from "../schemas/questions.ts";
import { price, queryBoolean, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

const serviceName = z.string().trim().min(1).max(200);
const durationMin = z.number().int().min(1).max(1440);
/** The USER id of a provider of this clinic; null = unassigned (any provider). */
const providerId = uuid.nullable();
/** The booking rules (docs/availability.md#booking-rules); each optional on create and update. */
const rules = {
  buffer_before_min: z.number().int().min(0).max(240).optional(),
  buffer_after_min: z.number().int().min(0).max(240).optional(),
  slot_step_min: z.number().int().min(5).max(1440).nullable().optional(),
  min_notice_min: z.number().int().min(0).max(525_600).optional(),
  booking_horizon_days: z.number().int().min(1).max(730).nullable().optional(),
  requires_confirmation: z.boolean().optional(),
  /** Seats of one slot: a group session when > 1 (§14). */
  capacity: z.number().int().min(1).max(200).optional(),
  /** Kinds of resources a booking needs, one of each (§14, docs/resources.md); default none. */
  required_resource_kinds: requiredResourceKindsInput.optional(),
  /** What a booking asks the patient (§19, docs/questions.md): up to 30 typed questions; replaced whole. */
  questions: questionsInput.optional(),
};

const servicesTag = ["services"] as const;

export const servicesRouter = {
  create: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/services",
        status: 201,
        query: ["clinic_id"],
        summary: "Create a service (audit SERVICE_CREATED)",
        tags: servicesTag,
        errors: ["NOT_A_PROVIDER"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        name: serviceName,
        duration_min: durationMin,
        price: price.nullable().optional(),
        provider_id: providerId.optional(),
        is_active: z.boolean().default(true),
        ...rules,
      }),
    )
    .output(serviceOutput)
    .mutation(({ ctx, input }) => createService(ctx.db, ctx.clinic.id, { email: ctx.user.email }, input)),

  update: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "PATCH",
        path: "/v1/services/:id",
        query: ["clinic_id"],
        summary:
          "Update a service: any subset of fields; provider_id assigns / reassigns, null unassigns (audit SERVICE_UPDATED)",
        tags: servicesTag,
        errors: ["NOT_A_PROVIDER"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        id: uuid,
        name: serviceName.optional(),
        duration_min: durationMin.optional(),
        price: price.nullable().optional(),
        provider_id: providerId.optional(),
        is_active: z.boolean().optional(),
        ...rules,
      }),
    )
    .output(serviceOutput)
    .mutation(({ ctx, input }) => {
      const { clinic_id: _clinicId, id, ...patch } = input;
      return updateService(ctx.db, ctx.clinic.id, id, { email: ctx.user.email }, patch);
    }),

  list: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/services",
        summary: "List services by name; with provider_id only that provider's services",
        tags: servicesTag,
      },
    })
    .input(
      z.object({
        clinic_id: uuid,
        provider_id: uuid.optional(),
        include_inactive: queryBoolean.default(false),
        ...pageInput,
      }),
    )
    .output(z.object({ services: z.array(serviceOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) =>
      listServices(ctx.db, {
        clinicId: ctx.clinic.id,
        providerId: input.provider_id,
        includeInactive: input.include_inactive,
        limit: input.limit,
        cursor: input.cursor,
      }),
    ),

  search: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/services/search",
        summary: "Fuzzy search of active services by name (typos, word order, case, accents), best first",
        tags: servicesTag,
      },
    })
    .input(
      z.object({
        clinic_id: uuid,
        q: z.string().trim().min(1).max(200),
        limit: z.coerce.number<number | string>().int().min(1).max(20).default(5),
      }),
    )
    .output(z.object({ matches: z.array(z.object({ service: serviceOutput, score: z.number().min(0).max(1) })) }))
    .query(async ({ ctx, input }) => ({ matches: await searchServices(ctx.db, ctx.clinic.id, input.q, input.limit) })),

  get: clinicProcedure("MEMBER")
    .meta({ rest: { method: "GET", path: "/v1/services/:id", summary: "Read a service", tags: servicesTag } })
    .input(z.object({ clinic_id: uuid, id: uuid }))
    .output(serviceOutput)
    .query(({ ctx, input }) => getService(ctx.db, ctx.clinic.id, input.id)),

  remove: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "DELETE",
        path: "/v1/services/:id",
        status: 204,
        query: ["clinic_id"],
        summary:
          "Delete a service (soft: gone from reads, lists, search and booking; appointments keep it; audit SERVICE_DELETED)",
        tags: servicesTag,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteService(ctx.db, ctx.clinic.id, input.id, { email: ctx.user.email })),

  bulkAssign: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/services/bulk_assign",
        query: ["clinic_id"],
        summary: "Assign several services to one provider in one transaction, all or nothing",
        tags: servicesTag,
        errors: ["NOT_A_PROVIDER", "ALREADY_ASSIGNED"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        provider_id: uuid,
        service_ids: z.array(uuid).min(1).max(500),
      }),
    )
    .output(z.object({ services: z.array(serviceOutput) }))
    .mutation(async ({ ctx, input }) => ({
      services: await bulkAssignServices(ctx.db, ctx.clinic.id, { email: ctx.user.email }, input),
    })),
} satisfies TRPCRouterRecord;
