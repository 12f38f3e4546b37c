import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { deliveryStatuses } from "@clinic/db";
import { nextCursorOutput, pageInput } from "../pagination.ts";
import {
  createWebhook,
  createdWebhookOutput,
  deleteWebhook,
  deliveryOutput,
  eventTypesInput,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  testWebhook,
  updateWebhook,
  webhookOutput,
} from "../modules/webhooks/index.ts";
import { uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

const tags = ["webhooks"] as const;
const hooksPath = "/v1/clinics/:clinic_id/webhooks";
const url = z.string().trim().min(8).max(2048);
const description = z.string().trim().max(500);

/** Appointment events are sent with the appointment's answers (§19: personal data; default false). */
const includeAnswers = z.boolean();

/** H1–H7: a clinic's webhook subscriptions and their deliveries; CLINIC_ADMIN's. */
export const webhooksRouter = {
  create: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: hooksPath,
        status: 201,
        summary: "Subscribe a URL to events (https, public address); the secret appears only here",
        tags,
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        url,
        event_types: eventTypesInput,
        description: description.optional(),
        include_answers: includeAnswers.optional(),
      }),
    )
    .output(createdWebhookOutput)
    .mutation(({ ctx, input }) =>
      createWebhook(
        ctx.db,
        ctx.clinic.id,
        {
          url: input.url,
          eventTypes: input.event_types,
          description: input.description,
          includeAnswers: input.include_answers,
        },
        ctx.webhooks,
      ),
    ),

  list: clinicProcedure("CLINIC_ADMIN")
    .meta({ rest: { method: "GET", path: hooksPath, summary: "The clinic's webhooks", tags } })
    .input(z.object({ clinic_id: uuid }))
    .output(z.object({ webhooks: z.array(webhookOutput) }))
    .query(async ({ ctx }) => ({ webhooks: await listWebhooks(ctx.db, ctx.clinic.id) })),

  update: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "PATCH",
        path: `${hooksPath}/:id`,
        summary: "Change a webhook's url, event types, description, or pause it",
        tags,
      },
    })
    .input(
      z.strictObject({
        clinic_id: uuid,
        id: uuid,
        url: url.optional(),
        event_types: eventTypesInput.optional(),
        description: description.nullable().optional(),
        active: z.boolean().optional(),
        include_answers: includeAnswers.optional(),
      }),
    )
    .output(webhookOutput)
    .mutation(({ ctx, input }) =>
      updateWebhook(
        ctx.db,
        ctx.clinic.id,
        input.id,
        {
          url: input.url,
          eventTypes: input.event_types,
          description: input.description,
          active: input.active,
          includeAnswers: input.include_answers,
        },
        ctx.webhooks,
      ),
    ),

  remove: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "DELETE",
        path: `${hooksPath}/:id`,
        status: 204,
        summary: "Delete a webhook (its pending deliveries stop)",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => deleteWebhook(ctx.db, ctx.clinic.id, input.id)),

  deliveries: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "GET",
        path: `${hooksPath}/:id/deliveries`,
        summary: "A webhook's deliveries, newest first",
        tags,
      },
    })
    .input(z.object({ clinic_id: uuid, id: uuid, status: z.enum(deliveryStatuses).optional(), ...pageInput }))
    .output(z.object({ deliveries: z.array(deliveryOutput), next_cursor: nextCursorOutput }))
    .query(({ ctx, input }) => listDeliveries(ctx.db, ctx.clinic.id, input.id, input)),

  retry: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: `${hooksPath}/:id/deliveries/:delivery_id/retry`,
        status: 202,
        summary: "A new attempt of a delivery, now",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid, delivery_id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => retryDelivery(ctx.db, ctx.clinic.id, input.id, input.delivery_id, ctx.now())),

  test: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "POST",
        path: `${hooksPath}/:id/test`,
        status: 202,
        summary: "Deliver a webhook.test event to the webhook",
        tags,
      },
    })
    .input(z.strictObject({ clinic_id: uuid, id: uuid }))
    .output(z.void())
    .mutation(({ ctx, input }) => testWebhook(ctx.db, ctx.clinic.id, input.id, ctx.now())),
} satisfies TRPCRouterRecord;
