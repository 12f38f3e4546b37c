-- The delivery history of first attempts that succeeded, one row per feed batch (issue 49,
-- docs/events.md#delivery-history): a batch of up to 50 events wrote a webhook_deliveries row each
-- (three indexes, 672 bytes of WAL a row in the bench); it writes one row of their seqs and status
-- codes now. H5 lists them as deliveries as before; every other outcome stays a webhook_deliveries
-- row. The rows written before this migration stay where they are.
CREATE TABLE "webhook_sent" (
	"clinic_id" uuid NOT NULL,
	"webhook_id" uuid NOT NULL,
	"sent_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"first_seq" bigint NOT NULL,
	"seqs" bigint[] NOT NULL,
	"codes" smallint[] NOT NULL,
	CONSTRAINT "webhook_sent_pkey" PRIMARY KEY("clinic_id","webhook_id","sent_at","first_seq"),
	CONSTRAINT "webhook_sent_aligned" CHECK (cardinality("webhook_sent"."codes") = cardinality("webhook_sent"."seqs"))
);
--> statement-breakpoint
ALTER TABLE "webhook_sent" ADD CONSTRAINT "webhook_sent_webhook_fk" FOREIGN KEY ("clinic_id","webhook_id") REFERENCES "public"."webhooks"("clinic_id","id") ON DELETE cascade ON UPDATE no action;