-- filter.query folds accents as it folds case, in every register: each FTS5 index is made again with the trigram
-- tokenizer's remove_diacritics ("securite" finds "Sécurité"), then rebuilt from its table's rows. The tables'
-- triggers name the index, so they keep it up to date as before. src/tools/search.ts folds a query the same way.
DROP TABLE "vendors_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "vendors_fts" USING fts5("name", "description", "legal_name", content='vendors', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "vendors_fts"("vendors_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "risks_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "risks_fts" USING fts5("name", "description", content='risks', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "risks_fts"("risks_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "measures_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "measures_fts" USING fts5("name", "description", content='measures', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "measures_fts"("measures_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "obligations_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "obligations_fts" USING fts5("requirement", "area", "source", "regulator", content='obligations', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "obligations_fts"("obligations_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "people_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "people_fts" USING fts5("full_name", "email", "position", content='people', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "people_fts"("people_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "frameworks_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "frameworks_fts" USING fts5("name", "description", content='frameworks', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "frameworks_fts"("frameworks_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "assets_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "assets_fts" USING fts5("name", "description", "data_types_stored", content='assets', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "assets_fts"("assets_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "data_classifications_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "data_classifications_fts" USING fts5("name", "description", content='data_classifications', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "data_classifications_fts"("data_classifications_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "nonconformities_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "nonconformities_fts" USING fts5("reference_id", "description", "root_cause", content='nonconformities', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "nonconformities_fts"("nonconformities_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "continual_improvements_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "continual_improvements_fts" USING fts5("reference_id", "description", "source", content='continual_improvements', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "continual_improvements_fts"("continual_improvements_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "audits_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "audits_fts" USING fts5("name", "auditor", "scope", content='audits', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "audits_fts"("audits_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "requirements_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "requirements_fts" USING fts5("reference", "title", "description", content='requirements', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "requirements_fts"("requirements_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "documents_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "documents_fts" USING fts5("title", "content", content='documents', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "documents_fts"("documents_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "evidence_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "evidence_fts" USING fts5("title", "description", content='evidence', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "evidence_fts"("evidence_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "tasks_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "tasks_fts" USING fts5("title", "description", content='tasks', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "tasks_fts"("tasks_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "incidents_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "incidents_fts" USING fts5("title", "description", "root_cause", content='incidents', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "incidents_fts"("incidents_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "incident_actions_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "incident_actions_fts" USING fts5("action", "outcome", content='incident_actions', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "incident_actions_fts"("incident_actions_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "incident_notifications_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "incident_notifications_fts" USING fts5("recipient", "reference", "note", content='incident_notifications', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "incident_notifications_fts"("incident_notifications_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "processing_activities_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "processing_activities_fts" USING fts5("name", "description", "purposes", content='processing_activities', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "processing_activities_fts"("processing_activities_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "dpias_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "dpias_fts" USING fts5("title", "description", content='dpias', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "dpias_fts"("dpias_fts") VALUES('rebuild');
--> statement-breakpoint
DROP TABLE "data_subject_requests_fts";
--> statement-breakpoint
CREATE VIRTUAL TABLE "data_subject_requests_fts" USING fts5("reference", "note", content='data_subject_requests', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO "data_subject_requests_fts"("data_subject_requests_fts") VALUES('rebuild');
