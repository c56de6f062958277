ALTER TABLE `measures` ADD `evidence_until` text;--> statement-breakpoint
ALTER TABLE `measures` ADD `unapproved_documents` integer DEFAULT 0;--> statement-breakpoint
ALTER TABLE `measures` ADD `readiness_blocked` integer;--> statement-breakpoint
ALTER TABLE `measures` ADD `ready_until` text;--> statement-breakpoint
ALTER TABLE `requirements` ADD `readiness_measures` integer;--> statement-breakpoint
ALTER TABLE `requirements` ADD `readiness_blocked` integer;--> statement-breakpoint
ALTER TABLE `requirements` ADD `ready_until` text;--> statement-breakpoint
CREATE INDEX `requirements_framework_readiness_idx` ON `requirements` (`framework_id`,`is_section`,`applicability`,`implementation_status`,`readiness_blocked`,`readiness_measures`,`ready_until`);