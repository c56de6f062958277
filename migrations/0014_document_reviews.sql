ALTER TABLE `documents` ADD `review_interval_days` integer;--> statement-breakpoint
ALTER TABLE `documents` ADD `last_reviewed_on` text;--> statement-breakpoint
ALTER TABLE `documents` ADD `last_review_note` text;