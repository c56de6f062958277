CREATE TABLE `oauth_clients` (
	`client_id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`client_name` text,
	`client_uri` text,
	`redirect_uris` text NOT NULL,
	`token_endpoint_auth_method` text NOT NULL,
	`client_secret_hash` text,
	`metadata` text NOT NULL,
	`created_at` text NOT NULL,
	`refresh_after` text
);
--> statement-breakpoint
CREATE INDEX `oauth_clients_created_idx` ON `oauth_clients` (`kind`,`created_at`);--> statement-breakpoint
CREATE TABLE `oauth_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`client_id` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`code_challenge` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text,
	FOREIGN KEY (`grant_id`) REFERENCES `oauth_grants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `oauth_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`client_id` text NOT NULL,
	`client_name` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`scope` text NOT NULL,
	`organization_ids` text,
	`resource` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	`refresh_hash` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `oauth_grants_user_idx` ON `oauth_grants` (`user_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `grant_id` text;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `resource` text;--> statement-breakpoint
CREATE INDEX `api_tokens_grant_idx` ON `api_tokens` (`grant_id`);