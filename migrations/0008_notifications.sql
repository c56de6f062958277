CREATE TABLE `notification_cursors` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notification_preferences` (
	`user_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`assigned` integer NOT NULL,
	`due_soon` integer NOT NULL,
	`due_days` integer NOT NULL,
	`overdue` integer NOT NULL,
	`owned_changes` integer NOT NULL,
	`digest` integer NOT NULL,
	`digest_hour` integer NOT NULL,
	`email` integer NOT NULL,
	`time_zone` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `organization_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`event_key` text NOT NULL,
	`user_id` text NOT NULL,
	`channel` text NOT NULL,
	`organization_id` text NOT NULL,
	`kind` text NOT NULL,
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
CREATE UNIQUE INDEX `notifications_event_unique` ON `notifications` (`event_key`,`user_id`,`channel`);--> statement-breakpoint
CREATE INDEX `notifications_user_idx` ON `notifications` (`user_id`,`channel`,`created_at`);--> statement-breakpoint
CREATE INDEX `notifications_status_idx` ON `notifications` (`channel`,`status`,`created_at`);