ALTER TABLE `api_tokens` ADD `refresh_hash` text;--> statement-breakpoint
ALTER TABLE `oauth_clients` ADD `registered_by` text;--> statement-breakpoint
CREATE INDEX `oauth_clients_registered_by_idx` ON `oauth_clients` (`registered_by`,`created_at`);--> statement-breakpoint
CREATE INDEX `oauth_grants_client_idx` ON `oauth_grants` (`client_id`,`created_at`);