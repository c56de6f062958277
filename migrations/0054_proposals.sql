CREATE TABLE `proposals` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`tool` text NOT NULL,
	`arguments` text NOT NULL,
	`kind` text NOT NULL,
	`action` text NOT NULL,
	`record_id` text,
	`base_updated_at` text,
	`before` text,
	`after` text,
	`reason` text NOT NULL,
	`proposed_by_user_id` text NOT NULL,
	`proposed_by_token_id` text NOT NULL,
	`proposed_by_client` text,
	`proposed_via` text NOT NULL,
	`proposed_call_id` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`decided_at` text,
	`decided_by_user_id` text,
	`decision_comment` text,
	`applied_call_id` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `proposals_org_idx` ON `proposals` (`organization_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `proposals_token_idx` ON `proposals` (`proposed_by_token_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `record_changes` ADD `proposal_id` text;