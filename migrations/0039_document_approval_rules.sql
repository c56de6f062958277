CREATE TABLE `document_approvals` (
	`document_id` text NOT NULL,
	`version` integer NOT NULL,
	`person_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`user_id` text NOT NULL,
	`approved_at` text NOT NULL,
	PRIMARY KEY(`document_id`, `version`, `person_id`)
);
--> statement-breakpoint
CREATE INDEX `document_approvals_org_idx` ON `document_approvals` (`organization_id`);--> statement-breakpoint
ALTER TABLE `documents` ADD `approval_rule` text DEFAULT 'ANY' NOT NULL;--> statement-breakpoint
ALTER TABLE `documents` ADD `approvals_required` integer;