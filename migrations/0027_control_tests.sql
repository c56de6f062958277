CREATE TABLE `control_tests` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`measure_id` text NOT NULL,
	`tester_id` text NOT NULL,
	`tested_on` text NOT NULL,
	`period_from` text,
	`period_to` text,
	`method` text NOT NULL,
	`sample` text,
	`result` text NOT NULL,
	`notes` text,
	`nonconformity_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `control_tests_org_created_idx` ON `control_tests` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `control_tests_org_updated_idx` ON `control_tests` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `control_tests_org_tested_idx` ON `control_tests` (`organization_id`,`tested_on`,`id`);--> statement-breakpoint
CREATE INDEX `control_tests_org_result_idx` ON `control_tests` (`organization_id`,`result`);--> statement-breakpoint
CREATE INDEX `control_tests_org_tester_idx` ON `control_tests` (`organization_id`,`tester_id`);--> statement-breakpoint
CREATE INDEX `control_tests_org_nonconformity_idx` ON `control_tests` (`organization_id`,`nonconformity_id`);--> statement-breakpoint
CREATE INDEX `control_tests_measure_idx` ON `control_tests` (`measure_id`,`tested_on`);--> statement-breakpoint
ALTER TABLE `measures` ADD `evidence_required` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `measures` ADD `test_interval_days` integer;--> statement-breakpoint
ALTER TABLE `measures` ADD `last_tested_on` text;--> statement-breakpoint
ALTER TABLE `measures` ADD `last_test_result` text;--> statement-breakpoint
ALTER TABLE `measures` ADD `next_test_on` text;--> statement-breakpoint
CREATE INDEX `measures_org_test_idx` ON `measures` (`organization_id`,`next_test_on`,`id`);