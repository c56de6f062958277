-- A measure keeps the two readiness facts that depend on other registers (src/tools/readiness.ts), so "implemented but
-- not ready" and the readiness of requirements read columns instead of walking evidence and documents per row:
--   evidence_until: the latest valid_until of its current evidence (an item no other supersedes), '9999-12-31' when
--     one never expires, null when it has none;
--   unapproved_documents: the covering documents (document_measures) not retired with no version in force.
-- Every write that can change either sets it again from the source rows; existing measures get both from what they
-- have, so readiness answers as it did before.
CREATE TRIGGER `measure_evidence_link_insert` AFTER INSERT ON `evidence_records` BEGIN
  UPDATE `measures` SET `evidence_until` = (SELECT max(coalesce(e.`valid_until`, '9999-12-31')) FROM `evidence_records` er JOIN `evidence` e ON e.`id` = er.`evidence_id` WHERE er.`record_id` = `measures`.`id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = e.`id`))
  WHERE `id` = new.`record_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `measure_evidence_link_update` AFTER UPDATE ON `evidence_records` BEGIN
  UPDATE `measures` SET `evidence_until` = (SELECT max(coalesce(e.`valid_until`, '9999-12-31')) FROM `evidence_records` er JOIN `evidence` e ON e.`id` = er.`evidence_id` WHERE er.`record_id` = `measures`.`id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = e.`id`))
  WHERE `id` IN (old.`record_id`, new.`record_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `measure_evidence_link_delete` AFTER DELETE ON `evidence_records` BEGIN
  UPDATE `measures` SET `evidence_until` = (SELECT max(coalesce(e.`valid_until`, '9999-12-31')) FROM `evidence_records` er JOIN `evidence` e ON e.`id` = er.`evidence_id` WHERE er.`record_id` = `measures`.`id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = e.`id`))
  WHERE `id` = old.`record_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `measure_evidence_insert` AFTER INSERT ON `evidence` WHEN new.`supersedes_id` IS NOT NULL BEGIN
  UPDATE `measures` SET `evidence_until` = (SELECT max(coalesce(e.`valid_until`, '9999-12-31')) FROM `evidence_records` er JOIN `evidence` e ON e.`id` = er.`evidence_id` WHERE er.`record_id` = `measures`.`id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = e.`id`))
  WHERE `id` IN (SELECT `record_id` FROM `evidence_records` WHERE `evidence_id` IN (new.`supersedes_id`));
END;
--> statement-breakpoint
CREATE TRIGGER `measure_evidence_update` AFTER UPDATE OF `valid_until`, `supersedes_id` ON `evidence` BEGIN
  UPDATE `measures` SET `evidence_until` = (SELECT max(coalesce(e.`valid_until`, '9999-12-31')) FROM `evidence_records` er JOIN `evidence` e ON e.`id` = er.`evidence_id` WHERE er.`record_id` = `measures`.`id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = e.`id`))
  WHERE `id` IN (SELECT `record_id` FROM `evidence_records` WHERE `evidence_id` IN (new.`id`, old.`supersedes_id`, new.`supersedes_id`));
END;
--> statement-breakpoint
CREATE TRIGGER `measure_evidence_delete` AFTER DELETE ON `evidence` BEGIN
  UPDATE `measures` SET `evidence_until` = (SELECT max(coalesce(e.`valid_until`, '9999-12-31')) FROM `evidence_records` er JOIN `evidence` e ON e.`id` = er.`evidence_id` WHERE er.`record_id` = `measures`.`id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = e.`id`))
  WHERE `id` IN (SELECT `record_id` FROM `evidence_records` WHERE `evidence_id` IN (old.`id`, old.`supersedes_id`));
END;
--> statement-breakpoint
CREATE TRIGGER `measure_document_link_insert` AFTER INSERT ON `document_measures` BEGIN
  UPDATE `measures` SET `unapproved_documents` = (SELECT count(*) FROM `document_measures` dm JOIN `documents` d ON d.`id` = dm.`document_id` WHERE dm.`measure_id` = `measures`.`id` AND d.`status` <> 'RETIRED' AND d.`published_version` IS NULL)
  WHERE `id` = new.`measure_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `measure_document_link_delete` AFTER DELETE ON `document_measures` BEGIN
  UPDATE `measures` SET `unapproved_documents` = (SELECT count(*) FROM `document_measures` dm JOIN `documents` d ON d.`id` = dm.`document_id` WHERE dm.`measure_id` = `measures`.`id` AND d.`status` <> 'RETIRED' AND d.`published_version` IS NULL)
  WHERE `id` = old.`measure_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `measure_document_update` AFTER UPDATE OF `status`, `published_version` ON `documents` BEGIN
  UPDATE `measures` SET `unapproved_documents` = (SELECT count(*) FROM `document_measures` dm JOIN `documents` d ON d.`id` = dm.`document_id` WHERE dm.`measure_id` = `measures`.`id` AND d.`status` <> 'RETIRED' AND d.`published_version` IS NULL)
  WHERE `id` IN (SELECT `measure_id` FROM `document_measures` WHERE `document_id` = new.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `measure_document_delete` AFTER DELETE ON `documents` BEGIN
  UPDATE `measures` SET `unapproved_documents` = (SELECT count(*) FROM `document_measures` dm JOIN `documents` d ON d.`id` = dm.`document_id` WHERE dm.`measure_id` = `measures`.`id` AND d.`status` <> 'RETIRED' AND d.`published_version` IS NULL)
  WHERE `id` IN (SELECT `measure_id` FROM `document_measures` WHERE `document_id` = old.`id`);
END;
--> statement-breakpoint
UPDATE `measures` SET `evidence_until` = (SELECT max(coalesce(e.`valid_until`, '9999-12-31')) FROM `evidence_records` er JOIN `evidence` e ON e.`id` = er.`evidence_id` WHERE er.`record_id` = `measures`.`id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = e.`id`)), `unapproved_documents` = (SELECT count(*) FROM `document_measures` dm JOIN `documents` d ON d.`id` = dm.`document_id` WHERE dm.`measure_id` = `measures`.`id` AND d.`status` <> 'RETIRED' AND d.`published_version` IS NULL);
