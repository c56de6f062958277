ALTER TABLE `measures` ADD `evidence_until` text;--> statement-breakpoint
ALTER TABLE `measures` ADD `unapproved_documents` integer DEFAULT 0;