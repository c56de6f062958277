CREATE TABLE `vendor_questionnaire_files` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`questionnaire_id` text NOT NULL,
	`question_key` text NOT NULL,
	`file_id` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `vendor_questionnaire_files_questionnaire_idx` ON `vendor_questionnaire_files` (`questionnaire_id`,`id`);--> statement-breakpoint
CREATE INDEX `vendor_questionnaire_files_file_idx` ON `vendor_questionnaire_files` (`file_id`);