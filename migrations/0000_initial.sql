CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`scope` text NOT NULL,
	`organization_ids` text,
	`created_at` text NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	`last_used_at` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_user_idx` ON `api_tokens` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `asset_vendors` (
	`asset_id` text NOT NULL,
	`vendor_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`asset_id`, `vendor_id`)
);
--> statement-breakpoint
CREATE INDEX `asset_vendors_vendor_idx` ON `asset_vendors` (`vendor_id`);--> statement-breakpoint
CREATE TABLE `assets` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`asset_type` text NOT NULL,
	`amount` integer NOT NULL,
	`owner_id` text,
	`data_types_stored` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `assets_org_created_idx` ON `assets` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `assets_org_updated_idx` ON `assets` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `assets_org_name_idx` ON `assets` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `assets_org_type_idx` ON `assets` (`organization_id`,`asset_type`);--> statement-breakpoint
CREATE INDEX `assets_org_owner_idx` ON `assets` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `audits` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`framework_id` text NOT NULL,
	`name` text,
	`state` text NOT NULL,
	`valid_from` text,
	`valid_until` text,
	`auditor` text,
	`scope` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `audits_org_created_idx` ON `audits` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `audits_org_updated_idx` ON `audits` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `audits_org_valid_until_idx` ON `audits` (`organization_id`,`valid_until`,`id`);--> statement-breakpoint
CREATE INDEX `audits_org_state_idx` ON `audits` (`organization_id`,`state`);--> statement-breakpoint
CREATE INDEX `audits_org_framework_idx` ON `audits` (`organization_id`,`framework_id`);--> statement-breakpoint
CREATE TABLE `continual_improvements` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`reference_id` text NOT NULL,
	`description` text,
	`source` text,
	`owner_id` text,
	`target_date` text,
	`status` text NOT NULL,
	`priority` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `continual_improvements_org_created_idx` ON `continual_improvements` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `continual_improvements_org_updated_idx` ON `continual_improvements` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `continual_improvements_org_reference_idx` ON `continual_improvements` (`organization_id`,`reference_id`,`id`);--> statement-breakpoint
CREATE INDEX `continual_improvements_org_target_idx` ON `continual_improvements` (`organization_id`,`target_date`,`id`);--> statement-breakpoint
CREATE INDEX `continual_improvements_org_status_idx` ON `continual_improvements` (`organization_id`,`status`);--> statement-breakpoint
CREATE INDEX `continual_improvements_org_priority_idx` ON `continual_improvements` (`organization_id`,`priority`);--> statement-breakpoint
CREATE INDEX `continual_improvements_org_owner_idx` ON `continual_improvements` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `data_classification_vendors` (
	`data_classification_id` text NOT NULL,
	`vendor_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`data_classification_id`, `vendor_id`)
);
--> statement-breakpoint
CREATE INDEX `data_classification_vendors_vendor_idx` ON `data_classification_vendors` (`vendor_id`);--> statement-breakpoint
CREATE TABLE `data_classifications` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`classification` text NOT NULL,
	`owner_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `data_classifications_org_created_idx` ON `data_classifications` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `data_classifications_org_updated_idx` ON `data_classifications` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `data_classifications_org_name_idx` ON `data_classifications` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `data_classifications_org_class_idx` ON `data_classifications` (`organization_id`,`classification`);--> statement-breakpoint
CREATE INDEX `data_classifications_org_owner_idx` ON `data_classifications` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `frameworks` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`version` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `frameworks_org_created_idx` ON `frameworks` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `frameworks_org_updated_idx` ON `frameworks` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `frameworks_org_name_idx` ON `frameworks` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE TABLE `measures` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`category` text NOT NULL,
	`state` text NOT NULL,
	`owner_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `measures_org_created_idx` ON `measures` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `measures_org_updated_idx` ON `measures` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `measures_org_name_idx` ON `measures` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `measures_org_state_idx` ON `measures` (`organization_id`,`state`);--> statement-breakpoint
CREATE INDEX `measures_org_owner_idx` ON `measures` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `memberships` (
	`organization_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`organization_id`, `user_id`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `memberships_user_idx` ON `memberships` (`user_id`);--> statement-breakpoint
CREATE TABLE `nonconformities` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`reference_id` text NOT NULL,
	`description` text,
	`audit_id` text,
	`date_identified` text,
	`root_cause` text,
	`corrective_action` text,
	`owner_id` text,
	`due_date` text,
	`status` text NOT NULL,
	`effectiveness_check` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `nonconformities_org_created_idx` ON `nonconformities` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `nonconformities_org_updated_idx` ON `nonconformities` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `nonconformities_org_reference_idx` ON `nonconformities` (`organization_id`,`reference_id`,`id`);--> statement-breakpoint
CREATE INDEX `nonconformities_org_due_idx` ON `nonconformities` (`organization_id`,`due_date`,`id`);--> statement-breakpoint
CREATE INDEX `nonconformities_org_status_idx` ON `nonconformities` (`organization_id`,`status`,`due_date`);--> statement-breakpoint
CREATE INDEX `nonconformities_org_audit_idx` ON `nonconformities` (`organization_id`,`audit_id`);--> statement-breakpoint
CREATE INDEX `nonconformities_org_owner_idx` ON `nonconformities` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `obligations` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`area` text,
	`source` text,
	`requirement` text NOT NULL,
	`regulator` text,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`owner_id` text,
	`last_review_date` text,
	`due_date` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `obligations_org_created_idx` ON `obligations` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `obligations_org_updated_idx` ON `obligations` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `obligations_org_due_idx` ON `obligations` (`organization_id`,`due_date`,`id`);--> statement-breakpoint
CREATE INDEX `obligations_org_status_idx` ON `obligations` (`organization_id`,`status`,`due_date`);--> statement-breakpoint
CREATE INDEX `obligations_org_owner_idx` ON `obligations` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `people` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`full_name` text NOT NULL,
	`email` text NOT NULL,
	`kind` text NOT NULL,
	`position` text,
	`contract_start_date` text,
	`contract_end_date` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `people_org_created_idx` ON `people` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `people_org_updated_idx` ON `people` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `people_org_name_idx` ON `people` (`organization_id`,`full_name`,`id`);--> statement-breakpoint
CREATE INDEX `people_org_kind_idx` ON `people` (`organization_id`,`kind`);--> statement-breakpoint
CREATE UNIQUE INDEX `people_org_email_unique` ON `people` (`organization_id`,`email`);--> statement-breakpoint
CREATE TABLE `risk_measures` (
	`risk_id` text NOT NULL,
	`measure_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`risk_id`, `measure_id`)
);
--> statement-breakpoint
CREATE INDEX `risk_measures_measure_idx` ON `risk_measures` (`measure_id`);--> statement-breakpoint
CREATE TABLE `risks` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`category` text NOT NULL,
	`status` text NOT NULL,
	`treatment` text NOT NULL,
	`owner_id` text,
	`inherent_likelihood` integer NOT NULL,
	`inherent_impact` integer NOT NULL,
	`inherent_score` integer NOT NULL,
	`residual_likelihood` integer NOT NULL,
	`residual_impact` integer NOT NULL,
	`residual_score` integer NOT NULL,
	`note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `risks_org_created_idx` ON `risks` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `risks_org_updated_idx` ON `risks` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `risks_org_name_idx` ON `risks` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `risks_org_residual_idx` ON `risks` (`organization_id`,`residual_score`,`id`);--> statement-breakpoint
CREATE INDEX `risks_org_inherent_idx` ON `risks` (`organization_id`,`inherent_score`,`id`);--> statement-breakpoint
CREATE INDEX `risks_org_status_idx` ON `risks` (`organization_id`,`status`);--> statement-breakpoint
CREATE INDEX `risks_org_treatment_idx` ON `risks` (`organization_id`,`treatment`);--> statement-breakpoint
CREATE INDEX `risks_org_owner_idx` ON `risks` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `sign_in_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`succeeded` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sign_in_attempts_email_idx` ON `sign_in_attempts` (`email`,`created_at`);--> statement-breakpoint
CREATE TABLE `tool_calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_id` text NOT NULL,
	`user_id` text NOT NULL,
	`tool` text NOT NULL,
	`surface` text NOT NULL,
	`organization_id` text,
	`outcome` text NOT NULL,
	`duration_ms` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tool_calls_token_idx` ON `tool_calls` (`token_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `tool_calls_org_idx` ON `tool_calls` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text,
	`password_hash` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `vendors` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`category` text NOT NULL,
	`legal_name` text,
	`website_url` text,
	`privacy_policy_url` text,
	`data_processing_agreement_url` text,
	`security_page_url` text,
	`certifications` text DEFAULT '[]' NOT NULL,
	`countries` text DEFAULT '[]' NOT NULL,
	`business_owner_id` text,
	`security_owner_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `vendors_org_created_idx` ON `vendors` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vendors_org_updated_idx` ON `vendors` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `vendors_org_name_idx` ON `vendors` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `vendors_org_category_idx` ON `vendors` (`organization_id`,`category`);