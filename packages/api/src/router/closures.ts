import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { assertMayManageProvider, assertMayReadProvider } from "../modules/access/index.ts";
import { requireProvider } from "../modules/members/index.ts";
import { clinicOwner, closureOutput, createClosure, deleteClosure, listClosures } from "../modules/schedule/index.ts";
import { instantInput, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

const closureInput = { starts_at: instantInput, ends_at: instantInput, reason: z.string().trim().max(500).optional() };
const rangeInput = { from: instantInput.optional(), to: instantInput.optional() };

const listOutput = z.object({ closures: z.array(closureOutput) });

export const closuresRouter = {
  createClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/clinics/:clinic_id/closures",
        status: 201,
        summary: "Close the clinic for a period (e.g. a holiday)",
        tags: ["closures"],
        errors: ["INVALID_TIME_RANGE"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, ...closureInput }))
    .output(closureOutput)
    .mutation(({ ctx, input }) => createClosure(ctx.db, clinicOwner(ctx.clinic.id), input)),

  listClinic: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/closures",
        summary: "Clinic closures overlapping [from, to)",
        tags: ["closures"],
      },
    })
    .input(z.object({ clinic_id: uuid, ...rangeInput }))
    .output(listOutput)
    .query(async ({ ctx, input }) => ({ closures: await listClosures(ctx.db, clinicOwner(ctx.clinic.id), input) })),

  deleteClinic: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "DELETE",
        path: "/v1/clinics/:clinic_id/closures/:closure_id",
        status: 204,
        summary: "Delete a clinic closure",
        tags: ["closures"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, closure_id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteClosure(ctx.db, clinicOwner(ctx.clinic.id), input.closure_id)),

  createProvider: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "POST",
        path: "/v1/providers/:provider_id/closures",
        status: 201,
        query: ["clinic_id"],
        summary: "A provider's absence (CLINIC_ADMIN or the provider)",
        tags: ["closures"],
        errors: ["INVALID_TIME_RANGE", "NOT_A_PROVIDER"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, provider_id: uuid, ...closureInput }))
    .output(closureOutput)
    .mutation(async ({ ctx, input }) => {
      assertMayManageProvider(ctx, input.provider_id);
      await requireProvider(ctx.db, ctx.clinic.id, input.provider_id, "NOT_A_PROVIDER");
      return createClosure(ctx.db, { clinicId: ctx.clinic.id, providerId: input.provider_id }, input);
    }),

  listProvider: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/providers/:provider_id/closures",
        summary: "A provider's closures overlapping [from, to)",
        tags: ["closures"],
      },
    })
    .input(z.object({ clinic_id: uuid, provider_id: uuid, ...rangeInput }))
    .output(listOutput)
    .query(async ({ ctx, input }) => {
      assertMayReadProvider(ctx, input.provider_id);
      await requireProvider(ctx.db, ctx.clinic.id, input.provider_id, "NOT_FOUND");
      return {
        closures: await listClosures(ctx.db, { clinicId: ctx.clinic.id, providerId: input.provider_id }, input),
      };
    }),

  deleteProvider: clinicProcedure("MEMBER")
    .meta({
      rest: {
        method: "DELETE",
        path: "/v1/providers/:provider_id/closures/:closure_id",
        status: 204,
        query: ["clinic_id"],
        summary: "Delete a provider closure",
        tags: ["closures"],
      },
    })
    .input(z.strictObject({ clinic_id: uuid, provider_id: uuid, closure_id: uuid }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      assertMayManageProvider(ctx, input.provider_id);
      await deleteClosure(ctx.db, { clinicId: ctx.clinic.id, providerId: input.provider_id }, input.closure_id);
    }),
} satisfies TRPCRouterRecord;
