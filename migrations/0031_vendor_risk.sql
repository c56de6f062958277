CREATE TABLE `vendor_assessments` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`vendor_id` text NOT NULL,
	`assessed_on` text NOT NULL,
	`assessor_id` text NOT NULL,
	`result` text NOT NULL,
	`tier` text NOT NULL,
	`expires_on` text NOT NULL,
	`summary` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `vendor_assessments_org_created_idx` ON `vendor_assessments` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vendor_assessments_org_updated_idx` ON `vendor_assessments` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `vendor_assessments_org_expires_idx` ON `vendor_assessments` (`organization_id`,`expires_on`,`id`);--> statement-breakpoint
CREATE INDEX `vendor_assessments_org_assessed_idx` ON `vendor_assessments` (`organization_id`,`assessed_on`,`id`);--> statement-breakpoint
CREATE INDEX `vendor_assessments_org_assessor_idx` ON `vendor_assessments` (`organization_id`,`assessor_id`);--> statement-breakpoint
CREATE INDEX `vendor_assessments_vendor_idx` ON `vendor_assessments` (`vendor_id`,`expires_on`);--> statement-breakpoint
CREATE TABLE `vendor_risks` (
	`vendor_id` text NOT NULL,
	`risk_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`vendor_id`, `risk_id`)
);
--> statement-breakpoint
CREATE INDEX `vendor_risks_risk_idx` ON `vendor_risks` (`risk_id`);--> statement-breakpoint
ALTER TABLE `vendors` ADD `tier` text;--> statement-breakpoint
ALTER TABLE `vendors` ADD `data_access` text;--> statement-breakpoint
ALTER TABLE `vendors` ADD `status` text DEFAULT 'ACTIVE' NOT NULL;--> statement-breakpoint
ALTER TABLE `vendors` ADD `contract_start_on` text;--> statement-breakpoint
ALTER TABLE `vendors` ADD `contract_end_on` text;--> statement-breakpoint
ALTER TABLE `vendors` ADD `renewal_on` text;--> statement-breakpoint
ALTER TABLE `vendors` ADD `sub_processor` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `vendors` ADD `write_nonce` text;--> statement-breakpoint
CREATE INDEX `vendors_org_status_idx` ON `vendors` (`organization_id`,`status`);--> statement-breakpoint
CREATE INDEX `vendors_org_renewal_idx` ON `vendors` (`organization_id`,`renewal_on`,`id`);