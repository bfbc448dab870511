-- Hand-written (decision 046): a base an import is still writing. The import writes its batches in short
-- transactions into a base marked here (touched by each batch) and clears the mark in its last transaction; every
-- read that shows or uses bases leaves marked ones out. NULL: a normal, visible base.
ALTER TABLE "databases" ADD COLUMN "importing_since" timestamp with time zone;
