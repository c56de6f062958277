CREATE TABLE `acknowledgement_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`document_id` text NOT NULL,
	`version_number` integer NOT NULL,
	`audience` text NOT NULL,
	`due_date` text,
	`requested_by_user_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `acknowledgement_requests_org_document_idx` ON `acknowledgement_requests` (`organization_id`,`document_id`);--> statement-breakpoint
CREATE TABLE `acknowledgements` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`request_id` text NOT NULL,
	`document_id` text NOT NULL,
	`version_number` integer NOT NULL,
	`person_id` text NOT NULL,
	`secret_hash` text,
	`link_expires_at` text,
	`acknowledged_at` text,
	`method` text,
	`reminded_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `acknowledgements_request_person_unique` ON `acknowledgements` (`request_id`,`person_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `acknowledgements_secret_unique` ON `acknowledgements` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `acknowledgements_org_document_idx` ON `acknowledgements` (`organization_id`,`document_id`,`version_number`,`acknowledged_at`,`person_id`);--> statement-breakpoint
CREATE INDEX `acknowledgements_person_idx` ON `acknowledgements` (`person_id`,`document_id`);