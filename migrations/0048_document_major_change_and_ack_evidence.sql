ALTER TABLE `acknowledgement_requests` ADD `evidence_id` text;--> statement-breakpoint
ALTER TABLE `documents` ADD `major_change` integer DEFAULT false NOT NULL;