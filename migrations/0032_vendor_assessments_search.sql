-- The search index of vendor assessments (as migrations/0002_fts_search.sql, folding accents as 0020). Existing
-- vendors need no backfill: the new status column's default ACTIVE is what they were.
CREATE VIRTUAL TABLE "vendor_assessments_fts" USING fts5("summary", content='vendor_assessments', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
CREATE TRIGGER "vendor_assessments_fts_insert" AFTER INSERT ON "vendor_assessments" BEGIN
  INSERT INTO "vendor_assessments_fts"(rowid, "summary") VALUES (new.rowid, new."summary");
END;
--> statement-breakpoint
CREATE TRIGGER "vendor_assessments_fts_delete" AFTER DELETE ON "vendor_assessments" BEGIN
  INSERT INTO "vendor_assessments_fts"("vendor_assessments_fts", rowid, "summary") VALUES ('delete', old.rowid, old."summary");
END;
--> statement-breakpoint
CREATE TRIGGER "vendor_assessments_fts_update" AFTER UPDATE OF "summary" ON "vendor_assessments" BEGIN
  INSERT INTO "vendor_assessments_fts"("vendor_assessments_fts", rowid, "summary") VALUES ('delete', old.rowid, old."summary");
  INSERT INTO "vendor_assessments_fts"(rowid, "summary") VALUES (new.rowid, new."summary");
END;
