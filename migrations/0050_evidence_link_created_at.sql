-- evidence_records.created_at mirrors its evidence item's created_at (the list's default order), so a record's
-- evidence is read from evidence_records_record_idx in that order. Kept by triggers whichever comes first, the item
-- or its link, and when an item's created_at changes.
-- Readiness recomputes a measure when a link moves, not when created_at is filled in (migration 0043's trigger ran on
-- any update of a link).
DROP TRIGGER `measure_evidence_link_update`;--> statement-breakpoint
CREATE TRIGGER `measure_evidence_link_update` AFTER UPDATE OF `evidence_id`, `record_id` ON `evidence_records` BEGIN
  UPDATE `measures` SET `evidence_until` = (SELECT max(coalesce(e.`valid_until`, '9999-12-31')) FROM `evidence_records` er JOIN `evidence` e ON e.`id` = er.`evidence_id` WHERE er.`record_id` = `measures`.`id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = e.`id`))
  WHERE `id` IN (old.`record_id`, new.`record_id`);
END;--> statement-breakpoint
UPDATE `evidence_records` SET `created_at` = (SELECT `created_at` FROM `evidence` WHERE `evidence`.`id` = `evidence_records`.`evidence_id`);--> statement-breakpoint
CREATE TRIGGER `evidence_records_created_at_on_link` AFTER INSERT ON `evidence_records` WHEN new.`created_at` IS NULL BEGIN
  UPDATE `evidence_records` SET `created_at` = (SELECT `created_at` FROM `evidence` WHERE `evidence`.`id` = new.`evidence_id`)
  WHERE `evidence_id` = new.`evidence_id` AND `record_id` = new.`record_id`;
END;--> statement-breakpoint
CREATE TRIGGER `evidence_records_created_at_on_item` AFTER INSERT ON `evidence` BEGIN
  UPDATE `evidence_records` SET `created_at` = new.`created_at` WHERE `evidence_id` = new.`id` AND `created_at` IS NOT new.`created_at`;
END;--> statement-breakpoint
CREATE TRIGGER `evidence_records_created_at_on_change` AFTER UPDATE OF `created_at` ON `evidence` BEGIN
  UPDATE `evidence_records` SET `created_at` = new.`created_at` WHERE `evidence_id` = new.`id`;
END;
