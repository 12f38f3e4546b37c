import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  createResource,
  createResourceClosure,
  deleteResource,
  deleteResourceClosure,
  listResourceClosures,
  listResources,
  resourceClosureOutput,
  resourceKindInput,
  resourceNameInput,
  resourceOutput,
  updateResource,
} from "../modules/resources/index.ts";
import { instantInput, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

const tags = ["resources"] as const;
const resourcesPath = "/v1/clinics/:clinic_id/resources";

/** Q1–Q5 (CONTRACT §14, docs/resources.md): a clinic's rooms and equipment; CLINIC_ADMIN's, listed by STAFF. */
export const resourcesRouter = {
  create: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: resourcesPath,
        status: 201,
        summary: "Add a resource (a room or a piece of equipment) of a kind services can require",
        tags,
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        name: resourceNameInput,
        kind: resourceKindInput,
        is_active: z.boolean().default(true),
      }),
    )
    .output(resourceOutput)
    .mutation(({ ctx, input }) =>
      createResource(ctx.db, ctx.clinic.id, { name: input.name, kind: input.kind, is_active: input.is_active }),
    ),

  list: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: resourcesPath,
        summary: "The clinic's resources, inactive ones included, by kind then name; with kind only that kind",
        tags,
      },
    })
    .input(z.object({ clinic_id: uuid, kind: resourceKindInput.optional() }))
    .output(z.object({ resources: z.array(resourceOutput) }))
    .query(async ({ ctx, input }) => ({ resources: await listResources(ctx.db, ctx.clinic.id, { kind: input.kind }) })),

  update: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "PATCH",
        path: `${resourcesPath}/:id`,
        summary: "Rename a resource, change its kind, or (de)activate it",
        tags,
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        id: uuid,
        name: resourceNameInput.optional(),
        kind: resourceKindInput.optional(),
        is_active: z.boolean().optional(),
      }),
    )
    .output(resourceOutput)
    .mutation(({ ctx, input }) =>
      updateResource(ctx.db, ctx.clinic.id, input.id, {
        name: input.name,
        kind: input.kind,
        is_active: input.is_active,
      }),
    ),

  remove: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "DELETE",
        path: `${resourcesPath}/:id`,
        status: 204,
        summary: "Delete a resource (soft: gone from lists and booking; appointments keep their record of it)",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteResource(ctx.db, ctx.clinic.id, input.id)),

  createClosure: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: `${resourcesPath}/:id/closures`,
        status: 201,
        summary: "Close a resource for a period (e.g. maintenance)",
        tags,
        errors: ["INVALID_TIME_RANGE"],
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        id: uuid,
        starts_at: instantInput,
        ends_at: instantInput,
        reason: z.string().trim().max(500).optional(),
      }),
    )
    .output(resourceClosureOutput)
    .mutation(({ ctx, input }) =>
      createResourceClosure(ctx.db, ctx.clinic.id, input.id, {
        starts_at: input.starts_at,
        ends_at: input.ends_at,
        reason: input.reason,
      }),
    ),

  listClosures: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: `${resourcesPath}/:id/closures`,
        summary: "A resource's closures overlapping [from, to), by start",
        tags,
      },
    })
    .input(z.object({ clinic_id: uuid, id: uuid, from: instantInput.optional(), to: instantInput.optional() }))
    .output(z.object({ closures: z.array(resourceClosureOutput) }))
    .query(async ({ ctx, input }) => ({
      closures: await listResourceClosures(ctx.db, ctx.clinic.id, input.id, { from: input.from, to: input.to }),
    })),

  deleteClosure: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "DELETE",
        path: `${resourcesPath}/:id/closures/:closure_id`,
        status: 204,
        summary: "Delete a resource closure",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid, closure_id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteResourceClosure(ctx.db, ctx.clinic.id, input.id, input.closure_id)),
} satisfies TRPCRouterRecord;
