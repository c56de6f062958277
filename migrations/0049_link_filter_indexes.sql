DROP INDEX `evidence_org_created_idx`;--> statement-breakpoint
CREATE INDEX `evidence_org_created_idx` ON `evidence` (`organization_id`,`created_at`,`id`,`valid_until`);--> statement-breakpoint
DROP INDEX `evidence_records_record_idx`;--> statement-breakpoint
ALTER TABLE `evidence_records` ADD `created_at` text;--> statement-breakpoint
CREATE INDEX `evidence_records_record_idx` ON `evidence_records` (`record_id`,`organization_id`,`created_at`,`evidence_id`);--> statement-breakpoint
DROP INDEX `tasks_org_created_idx`;--> statement-breakpoint
DROP INDEX `tasks_org_assignee_idx`;--> statement-breakpoint
CREATE INDEX `tasks_org_created_idx` ON `tasks` (`organization_id`,`created_at`,`id`,`assignee_user_id`,`status`);--> statement-breakpoint
CREATE INDEX `tasks_org_assignee_idx` ON `tasks` (`organization_id`,`assignee_user_id`,`status`);