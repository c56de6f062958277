CREATE TABLE `record_changes` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`kind` text NOT NULL,
	`record_id` text NOT NULL,
	`action` text NOT NULL,
	`surface` text NOT NULL,
	`user_id` text NOT NULL,
	`token_id` text,
	`call_id` text,
	`tool` text NOT NULL,
	`before` text,
	`after` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `record_changes_org_idx` ON `record_changes` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `record_changes_record_idx` ON `record_changes` (`record_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `record_changes_token_idx` ON `record_changes` (`token_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `record_changes_user_idx` ON `record_changes` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `record_changes_call_idx` ON `record_changes` (`call_id`);--> statement-breakpoint
ALTER TABLE `tool_calls` ADD `call_id` text;