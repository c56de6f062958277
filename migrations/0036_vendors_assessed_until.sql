ALTER TABLE `vendors` ADD `assessed_until` text;--> statement-breakpoint
CREATE INDEX `vendors_org_assessed_idx` ON `vendors` (`organization_id`,`assessed_until`,`id`);