-- Rebuilds (drizzle-kit): notifications gains to_address (link mails), record_changes a nullable user_id and
-- person_id (a person acting through a public link). The copies name NULL for the new columns the old tables lack.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`event_key` text NOT NULL,
	`user_id` text,
	`channel` text NOT NULL,
	`organization_id` text NOT NULL,
	`kind` text NOT NULL,
	`to_address` text,
	`person_id` text,
	`record_kind` text,
	`record_id` text,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	`claimed_at` text,
	`sent_at` text,
	`read_at` text
);
--> statement-breakpoint
INSERT INTO `__new_notifications`("id", "event_key", "user_id", "channel", "organization_id", "kind", "to_address", "person_id", "record_kind", "record_id", "title", "body", "status", "attempts", "last_error", "created_at", "claimed_at", "sent_at", "read_at") SELECT "id", "event_key", "user_id", "channel", "organization_id", "kind", NULL, "person_id", "record_kind", "record_id", "title", "body", "status", "attempts", "last_error", "created_at", "claimed_at", "sent_at", "read_at" FROM `notifications`;--> statement-breakpoint
DROP TABLE `notifications`;--> statement-breakpoint
ALTER TABLE `__new_notifications` RENAME TO `notifications`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_event_unique` ON `notifications` (`event_key`,`user_id`,`channel`);--> statement-breakpoint
CREATE INDEX `notifications_user_idx` ON `notifications` (`user_id`,`channel`,`created_at`);--> statement-breakpoint
CREATE INDEX `notifications_status_idx` ON `notifications` (`channel`,`status`,`created_at`);--> statement-breakpoint
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
CREATE INDEX `record_changes_org_idx` ON `record_changes` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `record_changes_record_idx` ON `record_changes` (`record_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `record_changes_token_idx` ON `record_changes` (`token_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `record_changes_user_idx` ON `record_changes` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `record_changes_person_idx` ON `record_changes` (`person_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `record_changes_call_idx` ON `record_changes` (`call_id`);