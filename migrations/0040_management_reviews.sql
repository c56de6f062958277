CREATE TABLE `management_review_attendees` (
	`management_review_id` text NOT NULL,
	`person_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`management_review_id`, `person_id`)
);
--> statement-breakpoint
CREATE INDEX `management_review_attendees_target_idx` ON `management_review_attendees` (`person_id`);--> statement-breakpoint
CREATE TABLE `management_review_tasks` (
	`management_review_id` text NOT NULL,
	`task_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`management_review_id`, `task_id`)
);
--> statement-breakpoint
CREATE INDEX `management_review_tasks_target_idx` ON `management_review_tasks` (`task_id`);--> statement-breakpoint
CREATE TABLE `management_reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`title` text NOT NULL,
	`held_on` text NOT NULL,
	`status` text NOT NULL,
	`period_from` text,
	`period_to` text,
	`chair_id` text,
	`earlier_actions` text,
	`issue_changes` text,
	`party_changes` text,
	`nonconformities_summary` text,
	`monitoring_summary` text,
	`audit_summary` text,
	`objectives_summary` text,
	`party_feedback` text,
	`risk_summary` text,
	`improvement_opportunities` text,
	`outputs` text,
	`decisions` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `management_reviews_org_created_idx` ON `management_reviews` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `management_reviews_org_updated_idx` ON `management_reviews` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `management_reviews_org_title_idx` ON `management_reviews` (`organization_id`,`title`,`id`);--> statement-breakpoint
CREATE INDEX `management_reviews_org_held_idx` ON `management_reviews` (`organization_id`,`held_on`,`id`);--> statement-breakpoint
CREATE INDEX `management_reviews_org_status_idx` ON `management_reviews` (`organization_id`,`status`,`held_on`);