-- Search indexes of the incident and privacy registers (as migrations/0002_fts_search.sql), and the triggers that queue
-- an incident's clocks to be computed again (src/tools/incidents/clock-store.ts) in the same transaction as a change.

CREATE VIRTUAL TABLE "incidents_fts" USING fts5("title", "description", "root_cause", content='incidents', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "incidents_fts_insert" AFTER INSERT ON "incidents" BEGIN
  INSERT INTO "incidents_fts"(rowid, "title", "description", "root_cause") VALUES (new.rowid, new."title", new."description", new."root_cause");
END;
--> statement-breakpoint
CREATE TRIGGER "incidents_fts_delete" AFTER DELETE ON "incidents" BEGIN
  INSERT INTO "incidents_fts"("incidents_fts", rowid, "title", "description", "root_cause") VALUES ('delete', old.rowid, old."title", old."description", old."root_cause");
END;
--> statement-breakpoint
CREATE TRIGGER "incidents_fts_update" AFTER UPDATE OF "title", "description", "root_cause" ON "incidents" BEGIN
  INSERT INTO "incidents_fts"("incidents_fts", rowid, "title", "description", "root_cause") VALUES ('delete', old.rowid, old."title", old."description", old."root_cause");
  INSERT INTO "incidents_fts"(rowid, "title", "description", "root_cause") VALUES (new.rowid, new."title", new."description", new."root_cause");
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE "incident_actions_fts" USING fts5("action", "outcome", content='incident_actions', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "incident_actions_fts_insert" AFTER INSERT ON "incident_actions" BEGIN
  INSERT INTO "incident_actions_fts"(rowid, "action", "outcome") VALUES (new.rowid, new."action", new."outcome");
END;
--> statement-breakpoint
CREATE TRIGGER "incident_actions_fts_delete" AFTER DELETE ON "incident_actions" BEGIN
  INSERT INTO "incident_actions_fts"("incident_actions_fts", rowid, "action", "outcome") VALUES ('delete', old.rowid, old."action", old."outcome");
END;
--> statement-breakpoint
CREATE TRIGGER "incident_actions_fts_update" AFTER UPDATE OF "action", "outcome" ON "incident_actions" BEGIN
  INSERT INTO "incident_actions_fts"("incident_actions_fts", rowid, "action", "outcome") VALUES ('delete', old.rowid, old."action", old."outcome");
  INSERT INTO "incident_actions_fts"(rowid, "action", "outcome") VALUES (new.rowid, new."action", new."outcome");
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE "incident_notifications_fts" USING fts5("recipient", "reference", "note", content='incident_notifications', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "incident_notifications_fts_insert" AFTER INSERT ON "incident_notifications" BEGIN
  INSERT INTO "incident_notifications_fts"(rowid, "recipient", "reference", "note") VALUES (new.rowid, new."recipient", new."reference", new."note");
END;
--> statement-breakpoint
CREATE TRIGGER "incident_notifications_fts_delete" AFTER DELETE ON "incident_notifications" BEGIN
  INSERT INTO "incident_notifications_fts"("incident_notifications_fts", rowid, "recipient", "reference", "note") VALUES ('delete', old.rowid, old."recipient", old."reference", old."note");
END;
--> statement-breakpoint
CREATE TRIGGER "incident_notifications_fts_update" AFTER UPDATE OF "recipient", "reference", "note" ON "incident_notifications" BEGIN
  INSERT INTO "incident_notifications_fts"("incident_notifications_fts", rowid, "recipient", "reference", "note") VALUES ('delete', old.rowid, old."recipient", old."reference", old."note");
  INSERT INTO "incident_notifications_fts"(rowid, "recipient", "reference", "note") VALUES (new.rowid, new."recipient", new."reference", new."note");
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE "processing_activities_fts" USING fts5("name", "description", "purposes", content='processing_activities', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "processing_activities_fts_insert" AFTER INSERT ON "processing_activities" BEGIN
  INSERT INTO "processing_activities_fts"(rowid, "name", "description", "purposes") VALUES (new.rowid, new."name", new."description", new."purposes");
END;
--> statement-breakpoint
CREATE TRIGGER "processing_activities_fts_delete" AFTER DELETE ON "processing_activities" BEGIN
  INSERT INTO "processing_activities_fts"("processing_activities_fts", rowid, "name", "description", "purposes") VALUES ('delete', old.rowid, old."name", old."description", old."purposes");
END;
--> statement-breakpoint
CREATE TRIGGER "processing_activities_fts_update" AFTER UPDATE OF "name", "description", "purposes" ON "processing_activities" BEGIN
  INSERT INTO "processing_activities_fts"("processing_activities_fts", rowid, "name", "description", "purposes") VALUES ('delete', old.rowid, old."name", old."description", old."purposes");
  INSERT INTO "processing_activities_fts"(rowid, "name", "description", "purposes") VALUES (new.rowid, new."name", new."description", new."purposes");
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE "dpias_fts" USING fts5("title", "description", content='dpias', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "dpias_fts_insert" AFTER INSERT ON "dpias" BEGIN
  INSERT INTO "dpias_fts"(rowid, "title", "description") VALUES (new.rowid, new."title", new."description");
END;
--> statement-breakpoint
CREATE TRIGGER "dpias_fts_delete" AFTER DELETE ON "dpias" BEGIN
  INSERT INTO "dpias_fts"("dpias_fts", rowid, "title", "description") VALUES ('delete', old.rowid, old."title", old."description");
END;
--> statement-breakpoint
CREATE TRIGGER "dpias_fts_update" AFTER UPDATE OF "title", "description" ON "dpias" BEGIN
  INSERT INTO "dpias_fts"("dpias_fts", rowid, "title", "description") VALUES ('delete', old.rowid, old."title", old."description");
  INSERT INTO "dpias_fts"(rowid, "title", "description") VALUES (new.rowid, new."title", new."description");
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE "data_subject_requests_fts" USING fts5("reference", "note", content='data_subject_requests', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "data_subject_requests_fts_insert" AFTER INSERT ON "data_subject_requests" BEGIN
  INSERT INTO "data_subject_requests_fts"(rowid, "reference", "note") VALUES (new.rowid, new."reference", new."note");
END;
--> statement-breakpoint
CREATE TRIGGER "data_subject_requests_fts_delete" AFTER DELETE ON "data_subject_requests" BEGIN
  INSERT INTO "data_subject_requests_fts"("data_subject_requests_fts", rowid, "reference", "note") VALUES ('delete', old.rowid, old."reference", old."note");
END;
--> statement-breakpoint
CREATE TRIGGER "data_subject_requests_fts_update" AFTER UPDATE OF "reference", "note" ON "data_subject_requests" BEGIN
  INSERT INTO "data_subject_requests_fts"("data_subject_requests_fts", rowid, "reference", "note") VALUES ('delete', old.rowid, old."reference", old."note");
  INSERT INTO "data_subject_requests_fts"(rowid, "reference", "note") VALUES (new.rowid, new."reference", new."note");
END;
--> statement-breakpoint
CREATE TRIGGER "incidents_clock_insert" AFTER INSERT ON "incidents" BEGIN
  INSERT INTO "incident_clock_queue" ("incident_id", "organization_id", "token") VALUES (new."id", new."organization_id", lower(hex(randomblob(8))))
    ON CONFLICT ("incident_id") DO UPDATE SET "token" = excluded."token";
END;
--> statement-breakpoint
CREATE TRIGGER "incidents_clock_update" AFTER UPDATE OF "detected_at", "personal_data", "gdpr_risk", "nis2_significant", "dora_major_at", "regimes" ON "incidents" BEGIN
  INSERT INTO "incident_clock_queue" ("incident_id", "organization_id", "token") VALUES (new."id", new."organization_id", lower(hex(randomblob(8))))
    ON CONFLICT ("incident_id") DO UPDATE SET "token" = excluded."token";
END;
--> statement-breakpoint
CREATE TRIGGER "incidents_clock_delete" AFTER DELETE ON "incidents" BEGIN
  DELETE FROM "incident_deadlines" WHERE "incident_id" = old."id";
  DELETE FROM "incident_clock_queue" WHERE "incident_id" = old."id";
END;
--> statement-breakpoint
CREATE TRIGGER "incident_notifications_clock_insert" AFTER INSERT ON "incident_notifications" BEGIN
  INSERT INTO "incident_clock_queue" ("incident_id", "organization_id", "token") VALUES (new."incident_id", new."organization_id", lower(hex(randomblob(8))))
    ON CONFLICT ("incident_id") DO UPDATE SET "token" = excluded."token";
END;
--> statement-breakpoint
CREATE TRIGGER "incident_notifications_clock_delete" AFTER DELETE ON "incident_notifications" BEGIN
  INSERT INTO "incident_clock_queue" ("incident_id", "organization_id", "token") VALUES (old."incident_id", old."organization_id", lower(hex(randomblob(8))))
    ON CONFLICT ("incident_id") DO UPDATE SET "token" = excluded."token";
END;
--> statement-breakpoint
CREATE TRIGGER "incident_notifications_clock_update" AFTER UPDATE OF "regime", "stage", "sent_at" ON "incident_notifications" BEGIN
  INSERT INTO "incident_clock_queue" ("incident_id", "organization_id", "token") VALUES (new."incident_id", new."organization_id", lower(hex(randomblob(8))))
    ON CONFLICT ("incident_id") DO UPDATE SET "token" = excluded."token";
END;
--> statement-breakpoint
CREATE TRIGGER "organizations_clock_settings" AFTER UPDATE OF "settings" ON "organizations" BEGIN
  INSERT INTO "incident_clock_queue" ("incident_id", "organization_id", "token")
    SELECT "id", "organization_id", lower(hex(randomblob(8))) FROM "incidents" WHERE "organization_id" = new."id"
    ON CONFLICT ("incident_id") DO UPDATE SET "token" = excluded."token";
END;
