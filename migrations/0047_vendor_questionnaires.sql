CREATE TABLE `questionnaire_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`questions` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `questionnaire_templates_org_idx` ON `questionnaire_templates` (`organization_id`,`id`);--> statement-breakpoint
CREATE TABLE `vendor_questionnaires` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`vendor_id` text NOT NULL,
	`template_id` text NOT NULL,
	`title` text NOT NULL,
	`questions` text NOT NULL,
	`contact_name` text NOT NULL,
	`contact_email` text NOT NULL,
	`due_date` text NOT NULL,
	`secret_hash` text,
	`link_expires_at` text NOT NULL,
	`reminded_at` text,
	`answers` text,
	`score` integer,
	`answered_at` text,
	`sent_by_user_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vendor_questionnaires_secret_unique` ON `vendor_questionnaires` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `vendor_questionnaires_org_idx` ON `vendor_questionnaires` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `vendor_questionnaires_vendor_idx` ON `vendor_questionnaires` (`vendor_id`,`id`);--> statement-breakpoint
CREATE INDEX `vendor_questionnaires_open_idx` ON `vendor_questionnaires` (`organization_id`,`answered_at`,`due_date`);