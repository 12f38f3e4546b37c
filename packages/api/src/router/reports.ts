import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import {
  appointmentsReport,
  appointmentsReportFormats,
  appointmentsReportText,
  appointmentsReportOutput,
  reportGroupings,
  resolveReportRange,
  utilizationOutput,
  utilizationReport,
} from "../modules/reports/index.ts";
import { statusSet } from "../schemas/booking.ts";
import { localDate, uuid } from "../schemas/wire.ts";
import { clinicProcedure } from "../trpc.ts";

/** What both reports are asked: the clinic, its local dates (inclusive, at most 366) and the optional provider and service. */
const reportInput = {
  clinic_id: uuid,
  from: localDate,
  to: localDate,
  provider_id: uuid.optional(),
  service_id: uuid.optional(),
};

/** Reports (CONTRACT §20, docs/reports.md): CLINIC_ADMIN; JSON, or CSV by `Accept: text/csv` over REST. */
export const reportsRouter = {
  utilization: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/reports/utilization",
        summary:
          "Utilization by provider, service, day, week or month: available and booked minutes, counts, no-show rate, lead time (CSV with Accept: text/csv)",
        tags: ["reports"],
        csv: { rows: "rows", filename: "utilization_{from}_{to}.csv", preferred: "json" },
      },
    })
    .input(z.object({ ...reportInput, group_by: z.enum(reportGroupings) }))
    .output(utilizationOutput)
    .query(async ({ ctx, input }) => ({
      rows: await utilizationReport(ctx.db, {
        clinicId: ctx.clinic.id,
        timeZone: ctx.clinic.timezone,
        range: resolveReportRange(input.from, input.to, ctx.clinic.timezone),
        groupBy: input.group_by,
        providerId: input.provider_id,
        serviceId: input.service_id,
      }),
    })),

  appointments: clinicProcedure("CLINIC_ADMIN")
    .meta({
      rest: {
        method: "GET",
        path: "/v1/clinics/:clinic_id/reports/appointments",
        summary:
          "The appointments of a range, one row each, without notes and answers: CSV, or JSON with Accept: application/json",
        tags: ["reports"],
        csv: {
          rows: "rows",
          filename: "appointments_{from}_{to}.csv",
          preferred: "csv",
          stream: "reports.appointmentsText",
        },
      },
    })
    .input(z.object({ ...reportInput, status: statusSet.optional() }))
    .output(appointmentsReportOutput)
    .query(async ({ ctx, input }) => ({
      rows: await appointmentsReport(ctx.db, {
        clinicId: ctx.clinic.id,
        timeZone: ctx.clinic.timezone,
        range: resolveReportRange(input.from, input.to, ctx.clinic.timezone),
        statuses: input.status,
        providerId: input.provider_id,
        serviceId: input.service_id,
      }),
    })),

  /**
   * RP2's answer as text, JSON or CSV, in chunks as PostgreSQL writes them (docs/reports.md#streaming):
   * what the REST route sends, without a list of row objects in memory or zod per row. A tRPC
   * caller gets the chunks as a stream too.
   */
  appointmentsText: clinicProcedure("CLINIC_ADMIN")
    .input(z.object({ ...reportInput, status: statusSet.optional(), format: z.enum(appointmentsReportFormats) }))
    .query(({ ctx, input }) =>
      appointmentsReportText(
        ctx.db,
        {
          clinicId: ctx.clinic.id,
          timeZone: ctx.clinic.timezone,
          range: resolveReportRange(input.from, input.to, ctx.clinic.timezone),
          statuses: input.status,
          providerId: input.provider_id,
          serviceId: input.service_id,
        },
        input.format,
      ),
    ),
} satisfies TRPCRouterRecord;
