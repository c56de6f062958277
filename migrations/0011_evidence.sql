CREATE TABLE `evidence` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`kind` text NOT NULL,
	`url` text,
	`file_id` text,
	`file_name` text,
	`size` integer,
	`content_type` text,
	`sha256` text,
	`collected_on` text NOT NULL,
	`valid_until` text,
	`supersedes_id` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `evidence_org_created_idx` ON `evidence` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `evidence_org_updated_idx` ON `evidence` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `evidence_org_title_idx` ON `evidence` (`organization_id`,`title`,`id`);--> statement-breakpoint
CREATE INDEX `evidence_org_collected_idx` ON `evidence` (`organization_id`,`collected_on`,`id`);--> statement-breakpoint
CREATE INDEX `evidence_org_valid_until_idx` ON `evidence` (`organization_id`,`valid_until`,`id`);--> statement-breakpoint
CREATE INDEX `evidence_org_kind_idx` ON `evidence` (`organization_id`,`kind`);--> statement-breakpoint
CREATE INDEX `evidence_supersedes_idx` ON `evidence` (`supersedes_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `evidence_file_idx` ON `evidence` (`file_id`);--> statement-breakpoint
CREATE TABLE `evidence_records` (
	`evidence_id` text NOT NULL,
	`record_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`evidence_id`, `record_id`)
);
--> statement-breakpoint
CREATE INDEX `evidence_records_record_idx` ON `evidence_records` (`record_id`);--> statement-breakpoint
-- filter.query on evidence: as the other registers (0002_fts_search.sql).
CREATE VIRTUAL TABLE `evidence_fts` USING fts5(`title`, `description`, content='evidence', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `evidence_fts_insert` AFTER INSERT ON `evidence` BEGIN
  INSERT INTO `evidence_fts`(rowid, `title`, `description`) VALUES (new.rowid, new.`title`, new.`description`);
END;
--> statement-breakpoint
CREATE TRIGGER `evidence_fts_delete` AFTER DELETE ON `evidence` BEGIN
  INSERT INTO `evidence_fts`(`evidence_fts`, rowid, `title`, `description`) VALUES ('delete', old.rowid, old.`title`, old.`description`);
END;
--> statement-breakpoint
CREATE TRIGGER `evidence_fts_update` AFTER UPDATE OF `title`, `description` ON `evidence` BEGIN
  INSERT INTO `evidence_fts`(`evidence_fts`, rowid, `title`, `description`) VALUES ('delete', old.rowid, old.`title`, old.`description`);
  INSERT INTO `evidence_fts`(rowid, `title`, `description`) VALUES (new.rowid, new.`title`, new.`description`);
END;
