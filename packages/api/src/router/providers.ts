import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { memberStatuses } from "@clinic/db";
import type { ProviderAction } from "../domain/providerStatus.ts";
import { getMember, memberOutput } from "../modules/members/index.ts";
import {
  getProvider,
  getProviderDetail,
  listProviders,
  providerDetailOutput,
  providerOutput,
  transitionProvider,
} from "../modules/providers/index.ts";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import { queryList, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

/** `status` filter: one value, comma-separated values, or a repeated parameter; each a known status. */
const statusFilter = queryList(z.enum(memberStatuses)).pipe(
  z.array(z.enum(memberStatuses)).min(1, "give at least one status"),
);

const providerPath = "/v1/clinics/:clinic_id/providers/:user_id";
const providersTag = ["providers"] as const;
const providerKey = z.strictObject({ clinic_id: uuid, user_id: uuid });

/** A lifecycle action answering the provider as it is afterwards. */
function statusTransition(action: Exclude<ProviderAction, "reject" | "remove">, summary: string) {
  return clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: `${providerPath}/${action}`,
        summary,
        tags: providersTag,
        errors: ["INVALID_TRANSITION"],
      },
    })
    .input(providerKey)
    .output(providerOutput)
    .mutation(async ({ ctx, input }) => {
      await transitionProvider(ctx.db, ctx.clinic.id, input.user_id, action);
      return getProvider(ctx.db, ctx.clinic.id, input.user_id);
    });
}

export const providersRouter = {
  list: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/providers",
        summary: "List the clinic's providers by full_name; filter by status, q (name or e-mail) and service_id",
        tags: providersTag,
      },
    })
    .input(
      z.object({
        clinic_id: uuid,
        status: statusFilter.optional(),
        q: z.string().trim().min(1).max(200).optional(),
        service_id: uuid.optional(),
        ...pageInput,
      }),
    )
    .output(z.object({ providers: z.array(providerOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) =>
      listProviders(ctx.db, {
        clinicId: ctx.clinic.id,
        statuses: input.status,
        q: input.q,
        serviceId: input.service_id,
        limit: input.limit,
        cursor: input.cursor,
      }),
    ),

  get: clinicProcedure("STAFF")
    .meta({
      rest: {
        method: "GET",
        path: providerPath,
        summary: "Provider detail: notes, work hours, assigned active services, current and future closures",
        tags: providersTag,
      },
    })
    .input(z.object({ clinic_id: uuid, user_id: uuid }))
    .output(providerDetailOutput)
    .query(({ ctx, input }) => getProviderDetail(ctx.db, ctx.clinic.id, input.user_id, ctx.now())),

  approve: statusTransition("approve", "Approve a pending provider (pending → approved)"),

  reject: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: `${providerPath}/reject`,
        summary: "Reject a pending provider: is_provider becomes false; answers the member",
        tags: providersTag,
        errors: ["INVALID_TRANSITION", "PROVIDER_HAS_SERVICES"],
      },
    })
    .input(providerKey)
    .output(memberOutput)
    .mutation(async ({ ctx, input }) => {
      await transitionProvider(ctx.db, ctx.clinic.id, input.user_id, "reject");
      return getMember(ctx.db, ctx.clinic.id, input.user_id);
    }),

  suspend: statusTransition("suspend", "Suspend an approved provider (approved → suspended)"),

  reactivate: statusTransition("reactivate", "Reactivate a suspended provider (suspended → approved)"),

  remove: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "DELETE",
        path: providerPath,
        status: 204,
        summary:
          "Remove a provider (any status): is_provider becomes false; refused while active services are assigned",
        tags: providersTag,
        errors: ["PROVIDER_HAS_SERVICES"],
      },
    })
    .input(providerKey)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await transitionProvider(ctx.db, ctx.clinic.id, input.user_id, "remove");
    }),
} satisfies TRPCRouterRecord;
