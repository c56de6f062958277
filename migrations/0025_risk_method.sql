CREATE TABLE `risk_acceptances` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`risk_id` text NOT NULL,
	`approver_id` text NOT NULL,
	`rationale` text NOT NULL,
	`accepted_level` text NOT NULL,
	`accepted_score` integer NOT NULL,
	`accepted_on` text NOT NULL,
	`expires_on` text NOT NULL,
	`revoked_on` text,
	`revocation_reason` text,
	`note` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `risk_acceptances_org_created_idx` ON `risk_acceptances` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `risk_acceptances_org_updated_idx` ON `risk_acceptances` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `risk_acceptances_org_expires_idx` ON `risk_acceptances` (`organization_id`,`expires_on`,`id`);--> statement-breakpoint
CREATE INDEX `risk_acceptances_org_approver_idx` ON `risk_acceptances` (`organization_id`,`approver_id`);--> statement-breakpoint
CREATE INDEX `risk_acceptances_risk_idx` ON `risk_acceptances` (`risk_id`,`accepted_on`);--> statement-breakpoint
ALTER TABLE `audits` ADD `reference` text;--> statement-breakpoint
CREATE INDEX `audits_org_reference_idx` ON `audits` (`organization_id`,`reference`);--> statement-breakpoint
ALTER TABLE `document_versions` ADD `data_file_id` text;--> statement-breakpoint
ALTER TABLE `documents` ADD `data_file_id` text;--> statement-breakpoint
ALTER TABLE `documents` ADD `source` text;--> statement-breakpoint
CREATE INDEX `documents_org_source_idx` ON `documents` (`organization_id`,`source`);--> statement-breakpoint
ALTER TABLE `nonconformities` ADD `effectiveness_checked_on` text;--> statement-breakpoint
ALTER TABLE `nonconformities` ADD `effectiveness_checked_by_id` text;--> statement-breakpoint
ALTER TABLE `nonconformities` ADD `effectiveness_result` text;--> statement-breakpoint
CREATE INDEX `nonconformities_org_checked_by_idx` ON `nonconformities` (`organization_id`,`effectiveness_checked_by_id`);--> statement-breakpoint
ALTER TABLE `obligations` ADD `reference` text;--> statement-breakpoint
CREATE INDEX `obligations_org_reference_idx` ON `obligations` (`organization_id`,`reference`);--> statement-breakpoint
ALTER TABLE `requirements` ADD `inclusion_reasons` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `risks` ADD `inherent_level` text DEFAULT 'low' NOT NULL;--> statement-breakpoint
ALTER TABLE `risks` ADD `residual_level` text DEFAULT 'low' NOT NULL;--> statement-breakpoint
ALTER TABLE `risks` ADD `above_appetite` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `risks` ADD `accepted_until` text;--> statement-breakpoint
ALTER TABLE `risks` ADD `accepted_score` integer;--> statement-breakpoint
CREATE INDEX `risks_org_level_idx` ON `risks` (`organization_id`,`residual_level`);--> statement-breakpoint
CREATE INDEX `risks_org_appetite_idx` ON `risks` (`organization_id`,`above_appetite`,`residual_score`);--> statement-breakpoint
CREATE INDEX `risks_org_accepted_idx` ON `risks` (`organization_id`,`status`,`accepted_until`);