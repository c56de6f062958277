CREATE TABLE `trust_access_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`document_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`company` text NOT NULL,
	`terms_accepted_at` text NOT NULL,
	`status` text NOT NULL,
	`decided_by_user_id` text,
	`decided_at` text,
	`secret_hash` text,
	`link_expires_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `trust_access_requests_secret_unique` ON `trust_access_requests` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `trust_access_requests_org_idx` ON `trust_access_requests` (`organization_id`,`status`,`id`);--> statement-breakpoint
CREATE TABLE `trust_page_items` (
	`organization_id` text NOT NULL,
	`record_id` text NOT NULL,
	`kind` text NOT NULL,
	`access` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`organization_id`, `record_id`)
);
--> statement-breakpoint
CREATE TABLE `trust_pages` (
	`organization_id` text PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`introduction` text,
	`contact_email` text,
	`show_sub_processors` integer DEFAULT false NOT NULL,
	`request_terms` text NOT NULL,
	`link_days` integer DEFAULT 7 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `trust_pages_slug_unique` ON `trust_pages` (`slug`);