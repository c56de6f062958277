PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_record_changes` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`kind` text NOT NULL,
	`record_id` text NOT NULL,
	`action` text NOT NULL,
	`surface` text NOT NULL,
	`user_id` text,
	`person_id` text,
	`token_id` text,
	`call_id` text,
	`tool` text NOT NULL,
	`before` text,
	`after` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_record_changes`("id", "organization_id", "kind", "record_id", "action", "surface", "user_id", "person_id", "token_id", "call_id", "tool", "before", "after", "created_at") SELECT "id", "organization_id", "kind", "record_id", "action", "surface", "user_id", NULL, "token_id", "call_id", "tool", "before", "after", "created_at" FROM `record_changes`;--> statement-breakpoint
DROP TABLE `record_changes`;--> statement-breakpoint
ALTER TABLE `__new_record_changes` RENAME TO `record_changes`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `record_changes_org_idx` ON `record_changes` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `record_changes_record_idx` ON `record_changes` (`record_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `record_changes_token_idx` ON `record_changes` (`token_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `record_changes_user_idx` ON `record_changes` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `record_changes_person_idx` ON `record_changes` (`person_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `record_changes_call_idx` ON `record_changes` (`call_id`);