CREATE TABLE `audit_checklist_results` (
	`audit_id` text NOT NULL,
	`requirement_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`result` text NOT NULL,
	`notes` text,
	`evidence_id` text,
	`nonconformity_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`audit_id`, `requirement_id`)
);
--> statement-breakpoint
CREATE INDEX `audit_checklist_results_requirement_idx` ON `audit_checklist_results` (`requirement_id`,`result`);--> statement-breakpoint
CREATE INDEX `audit_checklist_results_nonconformity_idx` ON `audit_checklist_results` (`nonconformity_id`);--> statement-breakpoint
CREATE INDEX `audit_checklist_results_evidence_idx` ON `audit_checklist_results` (`evidence_id`);--> statement-breakpoint
CREATE TABLE `audit_requirements` (
	`audit_id` text NOT NULL,
	`requirement_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`audit_id`, `requirement_id`)
);
--> statement-breakpoint
CREATE INDEX `audit_requirements_requirement_idx` ON `audit_requirements` (`requirement_id`);--> statement-breakpoint
CREATE TABLE `nonconformity_requirements` (
	`nonconformity_id` text NOT NULL,
	`requirement_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`nonconformity_id`, `requirement_id`)
);
--> statement-breakpoint
CREATE INDEX `nonconformity_requirements_requirement_idx` ON `nonconformity_requirements` (`requirement_id`);--> statement-breakpoint
CREATE TABLE `nonconformity_risks` (
	`nonconformity_id` text NOT NULL,
	`risk_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`nonconformity_id`, `risk_id`)
);
--> statement-breakpoint
CREATE INDEX `nonconformity_risks_risk_idx` ON `nonconformity_risks` (`risk_id`);--> statement-breakpoint
ALTER TABLE `audits` ADD `report_file_id` text;--> statement-breakpoint
ALTER TABLE `audits` ADD `write_nonce` text;--> statement-breakpoint
CREATE INDEX `audits_report_file_idx` ON `audits` (`report_file_id`);--> statement-breakpoint
ALTER TABLE `nonconformities` ADD `write_nonce` text;