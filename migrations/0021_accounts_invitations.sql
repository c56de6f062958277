CREATE TABLE `account_links` (
	`secret_hash` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`email` text NOT NULL,
	`user_id` text,
	`details` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text
);
--> statement-breakpoint
CREATE INDEX `account_links_email_idx` ON `account_links` (`email`,`purpose`);--> statement-breakpoint
CREATE TABLE `invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`invited_by_user_id` text NOT NULL,
	`secret_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_org_email_unique` ON `invitations` (`organization_id`,`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_secret_unique` ON `invitations` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `invitations_email_idx` ON `invitations` (`email`);--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `reach_as_of` text;--> statement-breakpoint
ALTER TABLE `memberships` ADD `earlier_tokens` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sign_in_attempts` ADD `client` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `sign_in_attempts_client_idx` ON `sign_in_attempts` (`email`,`client`,`id`);--> statement-breakpoint
ALTER TABLE `users` ADD `email_verified_at` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `created_by_user_id` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `paused_reason` text;