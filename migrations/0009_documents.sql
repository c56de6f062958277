CREATE TABLE `document_approvers` (
	`document_id` text NOT NULL,
	`person_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`document_id`, `person_id`)
);
--> statement-breakpoint
CREATE INDEX `document_approvers_person_idx` ON `document_approvers` (`person_id`);--> statement-breakpoint
CREATE TABLE `document_measures` (
	`document_id` text NOT NULL,
	`measure_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`document_id`, `measure_id`)
);
--> statement-breakpoint
CREATE INDEX `document_measures_measure_idx` ON `document_measures` (`measure_id`);--> statement-breakpoint
CREATE TABLE `document_requirements` (
	`document_id` text NOT NULL,
	`requirement_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`document_id`, `requirement_id`)
);
--> statement-breakpoint
CREATE INDEX `document_requirements_requirement_idx` ON `document_requirements` (`requirement_id`);--> statement-breakpoint
CREATE TABLE `document_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`document_id` text NOT NULL,
	`number` integer NOT NULL,
	`status` text NOT NULL,
	`content` text,
	`file_id` text,
	`approved_by_id` text,
	`approved_by_user_id` text,
	`approved_at` text,
	`published_at` text,
	`superseded_at` text,
	`retired_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_versions_document_number_unique` ON `document_versions` (`document_id`,`number`);--> statement-breakpoint
CREATE INDEX `document_versions_org_idx` ON `document_versions` (`organization_id`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`title` text NOT NULL,
	`type` text NOT NULL,
	`owner_id` text,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`published_version` integer,
	`content` text,
	`next_review_on` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `documents_org_created_idx` ON `documents` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `documents_org_updated_idx` ON `documents` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `documents_org_title_idx` ON `documents` (`organization_id`,`title`,`id`);--> statement-breakpoint
CREATE INDEX `documents_org_review_idx` ON `documents` (`organization_id`,`next_review_on`,`id`);--> statement-breakpoint
CREATE INDEX `documents_org_status_idx` ON `documents` (`organization_id`,`status`);--> statement-breakpoint
CREATE INDEX `documents_org_type_idx` ON `documents` (`organization_id`,`type`);--> statement-breakpoint
CREATE INDEX `documents_org_owner_idx` ON `documents` (`organization_id`,`owner_id`);--> statement-breakpoint
-- filter.query on documents: as the other registers (0002_fts_search.sql).
CREATE VIRTUAL TABLE `documents_fts` USING fts5(`title`, `content`, content='documents', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `documents_fts_insert` AFTER INSERT ON `documents` BEGIN
  INSERT INTO `documents_fts`(rowid, `title`, `content`) VALUES (new.rowid, new.`title`, new.`content`);
END;
--> statement-breakpoint
CREATE TRIGGER `documents_fts_delete` AFTER DELETE ON `documents` BEGIN
  INSERT INTO `documents_fts`(`documents_fts`, rowid, `title`, `content`) VALUES ('delete', old.rowid, old.`title`, old.`content`);
END;
--> statement-breakpoint
CREATE TRIGGER `documents_fts_update` AFTER UPDATE OF `title`, `content` ON `documents` BEGIN
  INSERT INTO `documents_fts`(`documents_fts`, rowid, `title`, `content`) VALUES ('delete', old.rowid, old.`title`, old.`content`);
  INSERT INTO `documents_fts`(rowid, `title`, `content`) VALUES (new.rowid, new.`title`, new.`content`);
END;
