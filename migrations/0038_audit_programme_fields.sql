ALTER TABLE `audits` ADD `audit_type` text;--> statement-breakpoint
ALTER TABLE `audits` ADD `planned_start_on` text;--> statement-breakpoint
ALTER TABLE `audits` ADD `planned_end_on` text;--> statement-breakpoint
ALTER TABLE `audits` ADD `actual_start_on` text;--> statement-breakpoint
ALTER TABLE `audits` ADD `actual_end_on` text;--> statement-breakpoint
ALTER TABLE `audits` ADD `observation_start_on` text;--> statement-breakpoint
ALTER TABLE `audits` ADD `observation_end_on` text;--> statement-breakpoint
ALTER TABLE `audits` ADD `lead_auditor_id` text;--> statement-breakpoint
CREATE INDEX `audits_org_type_idx` ON `audits` (`organization_id`,`audit_type`,`planned_start_on`);--> statement-breakpoint
CREATE INDEX `audits_org_lead_idx` ON `audits` (`organization_id`,`lead_auditor_id`);--> statement-breakpoint
ALTER TABLE `nonconformities` ADD `grade` text;--> statement-breakpoint
ALTER TABLE `nonconformities` ADD `clause` text;--> statement-breakpoint
CREATE INDEX `nonconformities_org_grade_idx` ON `nonconformities` (`organization_id`,`grade`,`status`);