CREATE TABLE `stored_files` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`storage_key` text NOT NULL,
	`name` text NOT NULL,
	`size` integer NOT NULL,
	`content_type` text NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `stored_files_storage_key_unique` ON `stored_files` (`storage_key`);--> statement-breakpoint
CREATE INDEX `stored_files_org_created_idx` ON `stored_files` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `stored_files_created_idx` ON `stored_files` (`created_at`);