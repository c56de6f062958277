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
CREATE INDEX `notifications_status_idx` ON `notifications` (`channel`,`status`,`created_at`);