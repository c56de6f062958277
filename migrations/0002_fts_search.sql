-- Full-text search for filter.query: one external-content FTS5 table per searched register (trigram tokenizer,
-- so any substring of 3+ characters matches), kept in sync by triggers, filled from the existing rows.
-- The FTS rows are keyed by the register rows' rowid: a later migration that rebuilds one of these tables must
-- recreate its triggers and run `INSERT INTO <table>_fts(<table>_fts) VALUES('rebuild')`.
CREATE VIRTUAL TABLE "vendors_fts" USING fts5("name", "description", "legal_name", content='vendors', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "vendors_fts_insert" AFTER INSERT ON "vendors" BEGIN
  INSERT INTO "vendors_fts"(rowid, "name", "description", "legal_name") VALUES (new.rowid, new."name", new."description", new."legal_name");
END;
--> statement-breakpoint
CREATE TRIGGER "vendors_fts_delete" AFTER DELETE ON "vendors" BEGIN
  INSERT INTO "vendors_fts"("vendors_fts", rowid, "name", "description", "legal_name") VALUES ('delete', old.rowid, old."name", old."description", old."legal_name");
END;
--> statement-breakpoint
CREATE TRIGGER "vendors_fts_update" AFTER UPDATE OF "name", "description", "legal_name" ON "vendors" BEGIN
  INSERT INTO "vendors_fts"("vendors_fts", rowid, "name", "description", "legal_name") VALUES ('delete', old.rowid, old."name", old."description", old."legal_name");
  INSERT INTO "vendors_fts"(rowid, "name", "description", "legal_name") VALUES (new.rowid, new."name", new."description", new."legal_name");
END;
--> statement-breakpoint
INSERT INTO "vendors_fts"("vendors_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "risks_fts" USING fts5("name", "description", content='risks', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "risks_fts_insert" AFTER INSERT ON "risks" BEGIN
  INSERT INTO "risks_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
CREATE TRIGGER "risks_fts_delete" AFTER DELETE ON "risks" BEGIN
  INSERT INTO "risks_fts"("risks_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
END;
--> statement-breakpoint
CREATE TRIGGER "risks_fts_update" AFTER UPDATE OF "name", "description" ON "risks" BEGIN
  INSERT INTO "risks_fts"("risks_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
  INSERT INTO "risks_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
INSERT INTO "risks_fts"("risks_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "measures_fts" USING fts5("name", "description", content='measures', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "measures_fts_insert" AFTER INSERT ON "measures" BEGIN
  INSERT INTO "measures_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
CREATE TRIGGER "measures_fts_delete" AFTER DELETE ON "measures" BEGIN
  INSERT INTO "measures_fts"("measures_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
END;
--> statement-breakpoint
CREATE TRIGGER "measures_fts_update" AFTER UPDATE OF "name", "description" ON "measures" BEGIN
  INSERT INTO "measures_fts"("measures_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
  INSERT INTO "measures_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
INSERT INTO "measures_fts"("measures_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "obligations_fts" USING fts5("requirement", "area", "source", "regulator", content='obligations', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "obligations_fts_insert" AFTER INSERT ON "obligations" BEGIN
  INSERT INTO "obligations_fts"(rowid, "requirement", "area", "source", "regulator") VALUES (new.rowid, new."requirement", new."area", new."source", new."regulator");
END;
--> statement-breakpoint
CREATE TRIGGER "obligations_fts_delete" AFTER DELETE ON "obligations" BEGIN
  INSERT INTO "obligations_fts"("obligations_fts", rowid, "requirement", "area", "source", "regulator") VALUES ('delete', old.rowid, old."requirement", old."area", old."source", old."regulator");
END;
--> statement-breakpoint
CREATE TRIGGER "obligations_fts_update" AFTER UPDATE OF "requirement", "area", "source", "regulator" ON "obligations" BEGIN
  INSERT INTO "obligations_fts"("obligations_fts", rowid, "requirement", "area", "source", "regulator") VALUES ('delete', old.rowid, old."requirement", old."area", old."source", old."regulator");
  INSERT INTO "obligations_fts"(rowid, "requirement", "area", "source", "regulator") VALUES (new.rowid, new."requirement", new."area", new."source", new."regulator");
END;
--> statement-breakpoint
INSERT INTO "obligations_fts"("obligations_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "people_fts" USING fts5("full_name", "email", "position", content='people', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "people_fts_insert" AFTER INSERT ON "people" BEGIN
  INSERT INTO "people_fts"(rowid, "full_name", "email", "position") VALUES (new.rowid, new."full_name", new."email", new."position");
END;
--> statement-breakpoint
CREATE TRIGGER "people_fts_delete" AFTER DELETE ON "people" BEGIN
  INSERT INTO "people_fts"("people_fts", rowid, "full_name", "email", "position") VALUES ('delete', old.rowid, old."full_name", old."email", old."position");
END;
--> statement-breakpoint
CREATE TRIGGER "people_fts_update" AFTER UPDATE OF "full_name", "email", "position" ON "people" BEGIN
  INSERT INTO "people_fts"("people_fts", rowid, "full_name", "email", "position") VALUES ('delete', old.rowid, old."full_name", old."email", old."position");
  INSERT INTO "people_fts"(rowid, "full_name", "email", "position") VALUES (new.rowid, new."full_name", new."email", new."position");
END;
--> statement-breakpoint
INSERT INTO "people_fts"("people_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "frameworks_fts" USING fts5("name", "description", content='frameworks', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "frameworks_fts_insert" AFTER INSERT ON "frameworks" BEGIN
  INSERT INTO "frameworks_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
CREATE TRIGGER "frameworks_fts_delete" AFTER DELETE ON "frameworks" BEGIN
  INSERT INTO "frameworks_fts"("frameworks_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
END;
--> statement-breakpoint
CREATE TRIGGER "frameworks_fts_update" AFTER UPDATE OF "name", "description" ON "frameworks" BEGIN
  INSERT INTO "frameworks_fts"("frameworks_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
  INSERT INTO "frameworks_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
INSERT INTO "frameworks_fts"("frameworks_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "assets_fts" USING fts5("name", "description", "data_types_stored", content='assets', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "assets_fts_insert" AFTER INSERT ON "assets" BEGIN
  INSERT INTO "assets_fts"(rowid, "name", "description", "data_types_stored") VALUES (new.rowid, new."name", new."description", new."data_types_stored");
END;
--> statement-breakpoint
CREATE TRIGGER "assets_fts_delete" AFTER DELETE ON "assets" BEGIN
  INSERT INTO "assets_fts"("assets_fts", rowid, "name", "description", "data_types_stored") VALUES ('delete', old.rowid, old."name", old."description", old."data_types_stored");
END;
--> statement-breakpoint
CREATE TRIGGER "assets_fts_update" AFTER UPDATE OF "name", "description", "data_types_stored" ON "assets" BEGIN
  INSERT INTO "assets_fts"("assets_fts", rowid, "name", "description", "data_types_stored") VALUES ('delete', old.rowid, old."name", old."description", old."data_types_stored");
  INSERT INTO "assets_fts"(rowid, "name", "description", "data_types_stored") VALUES (new.rowid, new."name", new."description", new."data_types_stored");
END;
--> statement-breakpoint
INSERT INTO "assets_fts"("assets_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "data_classifications_fts" USING fts5("name", "description", content='data_classifications', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "data_classifications_fts_insert" AFTER INSERT ON "data_classifications" BEGIN
  INSERT INTO "data_classifications_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
CREATE TRIGGER "data_classifications_fts_delete" AFTER DELETE ON "data_classifications" BEGIN
  INSERT INTO "data_classifications_fts"("data_classifications_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
END;
--> statement-breakpoint
CREATE TRIGGER "data_classifications_fts_update" AFTER UPDATE OF "name", "description" ON "data_classifications" BEGIN
  INSERT INTO "data_classifications_fts"("data_classifications_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
  INSERT INTO "data_classifications_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
INSERT INTO "data_classifications_fts"("data_classifications_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "nonconformities_fts" USING fts5("reference_id", "description", "root_cause", content='nonconformities', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "nonconformities_fts_insert" AFTER INSERT ON "nonconformities" BEGIN
  INSERT INTO "nonconformities_fts"(rowid, "reference_id", "description", "root_cause") VALUES (new.rowid, new."reference_id", new."description", new."root_cause");
END;
--> statement-breakpoint
CREATE TRIGGER "nonconformities_fts_delete" AFTER DELETE ON "nonconformities" BEGIN
  INSERT INTO "nonconformities_fts"("nonconformities_fts", rowid, "reference_id", "description", "root_cause") VALUES ('delete', old.rowid, old."reference_id", old."description", old."root_cause");
END;
--> statement-breakpoint
CREATE TRIGGER "nonconformities_fts_update" AFTER UPDATE OF "reference_id", "description", "root_cause" ON "nonconformities" BEGIN
  INSERT INTO "nonconformities_fts"("nonconformities_fts", rowid, "reference_id", "description", "root_cause") VALUES ('delete', old.rowid, old."reference_id", old."description", old."root_cause");
  INSERT INTO "nonconformities_fts"(rowid, "reference_id", "description", "root_cause") VALUES (new.rowid, new."reference_id", new."description", new."root_cause");
END;
--> statement-breakpoint
INSERT INTO "nonconformities_fts"("nonconformities_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "continual_improvements_fts" USING fts5("reference_id", "description", "source", content='continual_improvements', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "continual_improvements_fts_insert" AFTER INSERT ON "continual_improvements" BEGIN
  INSERT INTO "continual_improvements_fts"(rowid, "reference_id", "description", "source") VALUES (new.rowid, new."reference_id", new."description", new."source");
END;
--> statement-breakpoint
CREATE TRIGGER "continual_improvements_fts_delete" AFTER DELETE ON "continual_improvements" BEGIN
  INSERT INTO "continual_improvements_fts"("continual_improvements_fts", rowid, "reference_id", "description", "source") VALUES ('delete', old.rowid, old."reference_id", old."description", old."source");
END;
--> statement-breakpoint
CREATE TRIGGER "continual_improvements_fts_update" AFTER UPDATE OF "reference_id", "description", "source" ON "continual_improvements" BEGIN
  INSERT INTO "continual_improvements_fts"("continual_improvements_fts", rowid, "reference_id", "description", "source") VALUES ('delete', old.rowid, old."reference_id", old."description", old."source");
  INSERT INTO "continual_improvements_fts"(rowid, "reference_id", "description", "source") VALUES (new.rowid, new."reference_id", new."description", new."source");
END;
--> statement-breakpoint
INSERT INTO "continual_improvements_fts"("continual_improvements_fts") VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE "audits_fts" USING fts5("name", "auditor", "scope", content='audits', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "audits_fts_insert" AFTER INSERT ON "audits" BEGIN
  INSERT INTO "audits_fts"(rowid, "name", "auditor", "scope") VALUES (new.rowid, new."name", new."auditor", new."scope");
END;
--> statement-breakpoint
CREATE TRIGGER "audits_fts_delete" AFTER DELETE ON "audits" BEGIN
  INSERT INTO "audits_fts"("audits_fts", rowid, "name", "auditor", "scope") VALUES ('delete', old.rowid, old."name", old."auditor", old."scope");
END;
--> statement-breakpoint
CREATE TRIGGER "audits_fts_update" AFTER UPDATE OF "name", "auditor", "scope" ON "audits" BEGIN
  INSERT INTO "audits_fts"("audits_fts", rowid, "name", "auditor", "scope") VALUES ('delete', old.rowid, old."name", old."auditor", old."scope");
  INSERT INTO "audits_fts"(rowid, "name", "auditor", "scope") VALUES (new.rowid, new."name", new."auditor", new."scope");
END;
--> statement-breakpoint
INSERT INTO "audits_fts"("audits_fts") VALUES ('rebuild');
