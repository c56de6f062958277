CREATE TABLE `access_review_assets` (
	`access_review_id` text NOT NULL,
	`asset_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`access_review_id`, `asset_id`)
);
--> statement-breakpoint
CREATE INDEX `access_review_assets_target_idx` ON `access_review_assets` (`asset_id`);--> statement-breakpoint
CREATE TABLE `access_review_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`access_review_id` text NOT NULL,
	`account` text,
	`person_id` text,
	`system` text NOT NULL,
	`asset_id` text,
	`vendor_id` text,
	`access_level` text,
	`reviewer_id` text,
	`decision` text,
	`decided_at` text,
	`decided_by_id` text,
	`decision_comment` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `access_review_entries_org_created_idx` ON `access_review_entries` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `access_review_entries_org_updated_idx` ON `access_review_entries` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `access_review_entries_org_system_idx` ON `access_review_entries` (`organization_id`,`system`,`id`);--> statement-breakpoint
CREATE INDEX `access_review_entries_org_reviewer_idx` ON `access_review_entries` (`organization_id`,`reviewer_id`,`decision`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `access_review_entries_review_idx` ON `access_review_entries` (`access_review_id`,`decision`);--> statement-breakpoint
CREATE TABLE `access_review_requirements` (
	`access_review_id` text NOT NULL,
	`requirement_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`access_review_id`, `requirement_id`)
);
--> statement-breakpoint
CREATE INDEX `access_review_requirements_target_idx` ON `access_review_requirements` (`requirement_id`);--> statement-breakpoint
CREATE TABLE `access_review_reviewers` (
	`access_review_id` text NOT NULL,
	`person_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`access_review_id`, `person_id`)
);
--> statement-breakpoint
CREATE INDEX `access_review_reviewers_target_idx` ON `access_review_reviewers` (`person_id`);--> statement-breakpoint
CREATE TABLE `access_review_vendors` (
	`access_review_id` text NOT NULL,
	`vendor_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`access_review_id`, `vendor_id`)
);
--> statement-breakpoint
CREATE INDEX `access_review_vendors_target_idx` ON `access_review_vendors` (`vendor_id`);--> statement-breakpoint
CREATE TABLE `access_reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`status` text NOT NULL,
	`period_start` text,
	`period_end` text,
	`due_on` text,
	`owner_id` text,
	`completed_on` text,
	`evidence_id` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `access_reviews_org_created_idx` ON `access_reviews` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `access_reviews_org_updated_idx` ON `access_reviews` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `access_reviews_org_name_idx` ON `access_reviews` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `access_reviews_org_due_idx` ON `access_reviews` (`organization_id`,`due_on`,`id`);--> statement-breakpoint
CREATE INDEX `access_reviews_org_status_idx` ON `access_reviews` (`organization_id`,`status`,`due_on`);--> statement-breakpoint
CREATE INDEX `access_reviews_org_owner_idx` ON `access_reviews` (`organization_id`,`owner_id`);