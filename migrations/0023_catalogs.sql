CREATE TABLE `mapping_proposals` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`measure_id` text NOT NULL,
	`requirement_id` text NOT NULL,
	`framework_id` text NOT NULL,
	`source_requirement_id` text NOT NULL,
	`relationship` text NOT NULL,
	`status` text NOT NULL,
	`decided_by` text,
	`decided_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mapping_proposals_measure_requirement_idx` ON `mapping_proposals` (`measure_id`,`requirement_id`);--> statement-breakpoint
CREATE INDEX `mapping_proposals_org_framework_idx` ON `mapping_proposals` (`organization_id`,`framework_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `mapping_proposals_org_status_idx` ON `mapping_proposals` (`organization_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `mapping_proposals_requirement_idx` ON `mapping_proposals` (`requirement_id`);--> statement-breakpoint
CREATE INDEX `mapping_proposals_source_idx` ON `mapping_proposals` (`source_requirement_id`);--> statement-breakpoint
ALTER TABLE `frameworks` ADD `catalog_key` text;--> statement-breakpoint
ALTER TABLE `frameworks` ADD `catalog_revision` integer;--> statement-breakpoint
CREATE INDEX `frameworks_org_catalog_idx` ON `frameworks` (`organization_id`,`catalog_key`);