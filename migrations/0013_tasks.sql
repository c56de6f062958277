CREATE TABLE `task_records` (
	`task_id` text NOT NULL,
	`record_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`task_id`, `record_id`)
);
--> statement-breakpoint
CREATE INDEX `task_records_record_idx` ON `task_records` (`record_id`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`owner_id` text,
	`assignee_user_id` text,
	`due_on` text,
	`status` text NOT NULL,
	`priority` text NOT NULL,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tasks_org_created_idx` ON `tasks` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_org_updated_idx` ON `tasks` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_org_title_idx` ON `tasks` (`organization_id`,`title`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_org_due_idx` ON `tasks` (`organization_id`,`due_on`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_org_status_idx` ON `tasks` (`organization_id`,`status`,`due_on`);--> statement-breakpoint
CREATE INDEX `tasks_org_owner_idx` ON `tasks` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE INDEX `tasks_assignee_idx` ON `tasks` (`assignee_user_id`,`status`,`due_on`);--> statement-breakpoint
ALTER TABLE `measures` ADD `review_interval_days` integer;--> statement-breakpoint
ALTER TABLE `measures` ADD `last_reviewed_on` text;--> statement-breakpoint
ALTER TABLE `measures` ADD `last_review_note` text;--> statement-breakpoint
ALTER TABLE `measures` ADD `next_review_on` text;--> statement-breakpoint
CREATE INDEX `measures_org_review_idx` ON `measures` (`organization_id`,`next_review_on`,`id`);--> statement-breakpoint
ALTER TABLE `requirements` ADD `review_interval_days` integer;--> statement-breakpoint
ALTER TABLE `requirements` ADD `last_reviewed_on` text;--> statement-breakpoint
ALTER TABLE `requirements` ADD `last_review_note` text;--> statement-breakpoint
ALTER TABLE `requirements` ADD `next_review_on` text;--> statement-breakpoint
CREATE INDEX `requirements_org_review_idx` ON `requirements` (`organization_id`,`next_review_on`,`id`);--> statement-breakpoint
ALTER TABLE `risks` ADD `review_interval_days` integer;--> statement-breakpoint
ALTER TABLE `risks` ADD `last_reviewed_on` text;--> statement-breakpoint
ALTER TABLE `risks` ADD `last_review_note` text;--> statement-breakpoint
ALTER TABLE `risks` ADD `next_review_on` text;--> statement-breakpoint
CREATE INDEX `risks_org_review_idx` ON `risks` (`organization_id`,`next_review_on`,`id`);--> statement-breakpoint
ALTER TABLE `users` ADD `time_zone` text;--> statement-breakpoint
ALTER TABLE `vendors` ADD `review_interval_days` integer;--> statement-breakpoint
ALTER TABLE `vendors` ADD `last_reviewed_on` text;--> statement-breakpoint
ALTER TABLE `vendors` ADD `last_review_note` text;--> statement-breakpoint
ALTER TABLE `vendors` ADD `next_review_on` text;--> statement-breakpoint
CREATE INDEX `vendors_org_review_idx` ON `vendors` (`organization_id`,`next_review_on`,`id`);--> statement-breakpoint
CREATE VIRTUAL TABLE "tasks_fts" USING fts5("title", "description", content='tasks', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER "tasks_fts_insert" AFTER INSERT ON "tasks" BEGIN
  INSERT INTO "tasks_fts"(rowid, "title", "description") VALUES (new.rowid, new."title", new."description");
END;
--> statement-breakpoint
CREATE TRIGGER "tasks_fts_delete" AFTER DELETE ON "tasks" BEGIN
  INSERT INTO "tasks_fts"("tasks_fts", rowid, "title", "description") VALUES ('delete', old.rowid, old."title", old."description");
END;
--> statement-breakpoint
CREATE TRIGGER "tasks_fts_update" AFTER UPDATE OF "title", "description" ON "tasks" BEGIN
  INSERT INTO "tasks_fts"("tasks_fts", rowid, "title", "description") VALUES ('delete', old.rowid, old."title", old."description");
  INSERT INTO "tasks_fts"(rowid, "title", "description") VALUES (new.rowid, new."title", new."description");
END;
