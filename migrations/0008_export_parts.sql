CREATE TABLE "export_parts" (
	"export_id" integer NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "export_parts_export_id_seq_pk" PRIMARY KEY("export_id","seq")
);
--> statement-breakpoint
ALTER TABLE "export_parts" ADD CONSTRAINT "export_parts_export_id_exports_id_fk" FOREIGN KEY ("export_id") REFERENCES "public"."exports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- An xlsx is a zip already: Postgres need not try to compress it again.
ALTER TABLE "export_parts" ALTER COLUMN "data" SET STORAGE EXTERNAL;--> statement-breakpoint
-- Files of finished exports become their first and only part.
INSERT INTO "export_parts" ("export_id", "seq", "data") SELECT "id", 0, "file" FROM "exports" WHERE "file" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "exports" DROP COLUMN "file";