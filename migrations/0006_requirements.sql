CREATE TABLE `requirement_measures` (
	`requirement_id` text NOT NULL,
	`measure_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`requirement_id`, `measure_id`)
);
--> statement-breakpoint
CREATE INDEX `requirement_measures_measure_idx` ON `requirement_measures` (`measure_id`);--> statement-breakpoint
CREATE TABLE `requirements` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`framework_id` text NOT NULL,
	`reference` text NOT NULL,
	`reference_key` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`parent_id` text,
	`section_id` text,
	`is_section` integer NOT NULL,
	`position` integer,
	`applicability` text NOT NULL,
	`justification` text,
	`implementation_status` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `requirements_org_created_idx` ON `requirements` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `requirements_org_updated_idx` ON `requirements` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `requirements_org_reference_idx` ON `requirements` (`organization_id`,`reference_key`,`id`);--> statement-breakpoint
CREATE INDEX `requirements_org_title_idx` ON `requirements` (`organization_id`,`title`,`id`);--> statement-breakpoint
CREATE INDEX `requirements_org_position_idx` ON `requirements` (`organization_id`,`position`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `requirements_framework_reference_idx` ON `requirements` (`framework_id`,`reference`);--> statement-breakpoint
CREATE INDEX `requirements_framework_order_idx` ON `requirements` (`framework_id`,`reference_key`,`id`);--> statement-breakpoint
CREATE INDEX `requirements_framework_coverage_idx` ON `requirements` (`framework_id`,`section_id`,`is_section`,`applicability`,`implementation_status`);--> statement-breakpoint
CREATE INDEX `requirements_org_coverage_idx` ON `requirements` (`organization_id`,`framework_id`,`is_section`,`applicability`,`implementation_status`);--> statement-breakpoint
CREATE INDEX `requirements_parent_idx` ON `requirements` (`parent_id`);--> statement-breakpoint
-- implementation_status, derived from the linked measures and kept by these triggers (never written by the tools):
-- NULL for a section; NOT_APPLICABLE when the requirement is EXCLUDED; otherwise from its measures that are not
-- NOT_APPLICABLE: none NOT_COVERED, all IMPLEMENTED IMPLEMENTED, any IMPLEMENTED or IN_PROGRESS
-- PARTIALLY_IMPLEMENTED, else (all NOT_STARTED) PLANNED. Each trigger recomputes the requirements its change touches.
CREATE TRIGGER `requirements_status_insert` AFTER INSERT ON `requirements` BEGIN
  UPDATE `requirements` SET `implementation_status` = CASE
    WHEN new.`is_section` THEN NULL
    WHEN new.`applicability` = 'EXCLUDED' THEN 'NOT_APPLICABLE'
    ELSE 'NOT_COVERED' END
  WHERE `id` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_status_update` AFTER UPDATE OF `applicability`, `is_section` ON `requirements` BEGIN
  UPDATE `requirements` SET `implementation_status` = CASE
    WHEN new.`is_section` THEN NULL
    WHEN new.`applicability` = 'EXCLUDED' THEN 'NOT_APPLICABLE'
    ELSE (SELECT CASE
      WHEN count(*) = 0 THEN 'NOT_COVERED'
      WHEN sum(m.`state` = 'IMPLEMENTED') = count(*) THEN 'IMPLEMENTED'
      WHEN sum(m.`state` IN ('IMPLEMENTED', 'IN_PROGRESS')) > 0 THEN 'PARTIALLY_IMPLEMENTED'
      ELSE 'PLANNED' END
      FROM `requirement_measures` l JOIN `measures` m ON m.`id` = l.`measure_id`
      WHERE l.`requirement_id` = new.`id` AND m.`state` != 'NOT_APPLICABLE') END
  WHERE `id` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `requirement_measures_status_insert` AFTER INSERT ON `requirement_measures` BEGIN
  UPDATE `requirements` SET `implementation_status` = CASE
    WHEN `is_section` THEN NULL
    WHEN `applicability` = 'EXCLUDED' THEN 'NOT_APPLICABLE'
    ELSE (SELECT CASE
      WHEN count(*) = 0 THEN 'NOT_COVERED'
      WHEN sum(m.`state` = 'IMPLEMENTED') = count(*) THEN 'IMPLEMENTED'
      WHEN sum(m.`state` IN ('IMPLEMENTED', 'IN_PROGRESS')) > 0 THEN 'PARTIALLY_IMPLEMENTED'
      ELSE 'PLANNED' END
      FROM `requirement_measures` l JOIN `measures` m ON m.`id` = l.`measure_id`
      WHERE l.`requirement_id` = new.`requirement_id` AND m.`state` != 'NOT_APPLICABLE') END
  WHERE `id` = new.`requirement_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `requirement_measures_status_delete` AFTER DELETE ON `requirement_measures` BEGIN
  UPDATE `requirements` SET `implementation_status` = CASE
    WHEN `is_section` THEN NULL
    WHEN `applicability` = 'EXCLUDED' THEN 'NOT_APPLICABLE'
    ELSE (SELECT CASE
      WHEN count(*) = 0 THEN 'NOT_COVERED'
      WHEN sum(m.`state` = 'IMPLEMENTED') = count(*) THEN 'IMPLEMENTED'
      WHEN sum(m.`state` IN ('IMPLEMENTED', 'IN_PROGRESS')) > 0 THEN 'PARTIALLY_IMPLEMENTED'
      ELSE 'PLANNED' END
      FROM `requirement_measures` l JOIN `measures` m ON m.`id` = l.`measure_id`
      WHERE l.`requirement_id` = old.`requirement_id` AND m.`state` != 'NOT_APPLICABLE') END
  WHERE `id` = old.`requirement_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `measures_requirement_status_update` AFTER UPDATE OF `state` ON `measures` BEGIN
  UPDATE `requirements` SET `implementation_status` = CASE
    WHEN `is_section` THEN NULL
    WHEN `applicability` = 'EXCLUDED' THEN 'NOT_APPLICABLE'
    ELSE (SELECT CASE
      WHEN count(*) = 0 THEN 'NOT_COVERED'
      WHEN sum(m.`state` = 'IMPLEMENTED') = count(*) THEN 'IMPLEMENTED'
      WHEN sum(m.`state` IN ('IMPLEMENTED', 'IN_PROGRESS')) > 0 THEN 'PARTIALLY_IMPLEMENTED'
      ELSE 'PLANNED' END
      FROM `requirement_measures` l JOIN `measures` m ON m.`id` = l.`measure_id`
      WHERE l.`requirement_id` = `requirements`.`id` AND m.`state` != 'NOT_APPLICABLE') END
  WHERE `id` IN (SELECT `requirement_id` FROM `requirement_measures` WHERE `measure_id` = new.`id`)
    AND old.`state` IS NOT new.`state`;
END;
--> statement-breakpoint
-- filter.query on requirements: as the other registers (0002_fts_search.sql).
CREATE VIRTUAL TABLE `requirements_fts` USING fts5(`reference`, `title`, `description`, content='requirements', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `requirements_fts_insert` AFTER INSERT ON `requirements` BEGIN
  INSERT INTO `requirements_fts`(rowid, `reference`, `title`, `description`) VALUES (new.rowid, new.`reference`, new.`title`, new.`description`);
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_fts_delete` AFTER DELETE ON `requirements` BEGIN
  INSERT INTO `requirements_fts`(`requirements_fts`, rowid, `reference`, `title`, `description`) VALUES ('delete', old.rowid, old.`reference`, old.`title`, old.`description`);
END;
--> statement-breakpoint
CREATE TRIGGER `requirements_fts_update` AFTER UPDATE OF `reference`, `title`, `description` ON `requirements` BEGIN
  INSERT INTO `requirements_fts`(`requirements_fts`, rowid, `reference`, `title`, `description`) VALUES ('delete', old.rowid, old.`reference`, old.`title`, old.`description`);
  INSERT INTO `requirements_fts`(rowid, `reference`, `title`, `description`) VALUES (new.rowid, new.`reference`, new.`title`, new.`description`);
END;
