-- Readiness (src/tools/readiness.ts, docs/frameworks.md) reads stored facts, so "implemented but not ready", coverage's
-- readiness counts and the list filters test columns instead of walking each measure's evidence and documents:
--   measures.evidence_until: the latest valid_until of its current evidence (an item no other supersedes),
--     '9999-12-31' when one never expires, null when it has none;
--   measures.unapproved_documents: the covering documents (document_measures) not retired with no version in force;
--   measures.readiness_blocked / ready_until: the measure is not ready whatever the day (1), else the last day it
--     stays ready (its evidence's expiry, its next test);
--   requirements.readiness_measures / readiness_blocked / ready_until: of its mapped measures not NOT_APPLICABLE, how
--     many, how many blocked, and the earliest ready_until.
-- Every write that can change a fact sets it again from its source rows in the same statement (a change to evidence
-- sets the measure's, which sets its requirements'). Existing rows get theirs from what they have, so readiness
-- answers as it did before. The day is applied on read.
-- A new link can only raise the latest expiry (or set the first): O(1), however much evidence the measure holds.
CREATE TRIGGER `measure_evidence_link_insert` AFTER INSERT ON `evidence_records` BEGIN
  UPDATE `measures` SET `evidence_until` = nullif(max(coalesce(`evidence_until`, ''), coalesce((SELECT coalesce(e.`valid_until`, '9999-12-31') FROM `evidence` e WHERE e.`id` = new.`evidence_id`), '')), '')
  WHERE `id` = new.`record_id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = new.`evidence_id`);
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
CREATE TRIGGER `measure_readiness_insert` AFTER INSERT ON `measures` BEGIN
  UPDATE `measures` SET
    `readiness_blocked` = CASE WHEN `state` <> 'IMPLEMENTED' OR (`evidence_required` = 1 AND `evidence_until` IS NULL) OR coalesce(`unapproved_documents`, 0) > 0 OR (`test_interval_days` IS NOT NULL AND `last_tested_on` IS NULL) OR coalesce(`last_test_result`, 'EFFECTIVE') <> 'EFFECTIVE' THEN 1 ELSE 0 END,
    `ready_until` = min(CASE WHEN `evidence_required` = 1 THEN coalesce(`evidence_until`, '9999-12-31') ELSE '9999-12-31' END, coalesce(`next_test_on`, '9999-12-31'))
  WHERE `id` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `measure_readiness_update` AFTER UPDATE OF `state`, `evidence_required`, `evidence_until`, `unapproved_documents`, `test_interval_days`, `last_tested_on`, `last_test_result`, `next_test_on` ON `measures` BEGIN
  UPDATE `measures` SET
    `readiness_blocked` = CASE WHEN `state` <> 'IMPLEMENTED' OR (`evidence_required` = 1 AND `evidence_until` IS NULL) OR coalesce(`unapproved_documents`, 0) > 0 OR (`test_interval_days` IS NOT NULL AND `last_tested_on` IS NULL) OR coalesce(`last_test_result`, 'EFFECTIVE') <> 'EFFECTIVE' THEN 1 ELSE 0 END,
    `ready_until` = min(CASE WHEN `evidence_required` = 1 THEN coalesce(`evidence_until`, '9999-12-31') ELSE '9999-12-31' END, coalesce(`next_test_on`, '9999-12-31'))
  WHERE `id` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `requirement_readiness_measure_update` AFTER UPDATE OF `state`, `readiness_blocked`, `ready_until` ON `measures` BEGIN
  UPDATE `requirements` SET
    `readiness_measures` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE'),
    `readiness_blocked` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE' AND coalesce(m.`readiness_blocked`, 1) = 1),
    `ready_until` = (SELECT min(m.`ready_until`) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE')
  WHERE `id` IN (SELECT `requirement_id` FROM `requirement_measures` WHERE `measure_id` = new.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `requirement_readiness_measure_delete` AFTER DELETE ON `measures` BEGIN
  UPDATE `requirements` SET
    `readiness_measures` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE'),
    `readiness_blocked` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE' AND coalesce(m.`readiness_blocked`, 1) = 1),
    `ready_until` = (SELECT min(m.`ready_until`) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE')
  WHERE `id` IN (SELECT `requirement_id` FROM `requirement_measures` WHERE `measure_id` = old.`id`);
END;
--> statement-breakpoint
CREATE TRIGGER `requirement_readiness_link_insert` AFTER INSERT ON `requirement_measures` BEGIN
  UPDATE `requirements` SET
    `readiness_measures` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE'),
    `readiness_blocked` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE' AND coalesce(m.`readiness_blocked`, 1) = 1),
    `ready_until` = (SELECT min(m.`ready_until`) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE')
  WHERE `id` = new.`requirement_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `requirement_readiness_link_delete` AFTER DELETE ON `requirement_measures` BEGIN
  UPDATE `requirements` SET
    `readiness_measures` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE'),
    `readiness_blocked` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE' AND coalesce(m.`readiness_blocked`, 1) = 1),
    `ready_until` = (SELECT min(m.`ready_until`) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE')
  WHERE `id` = old.`requirement_id`;
END;
--> statement-breakpoint
UPDATE `measures` SET `evidence_until` = (SELECT max(coalesce(e.`valid_until`, '9999-12-31')) FROM `evidence_records` er JOIN `evidence` e ON e.`id` = er.`evidence_id` WHERE er.`record_id` = `measures`.`id` AND NOT EXISTS (SELECT 1 FROM `evidence` s WHERE s.`supersedes_id` = e.`id`)), `unapproved_documents` = (SELECT count(*) FROM `document_measures` dm JOIN `documents` d ON d.`id` = dm.`document_id` WHERE dm.`measure_id` = `measures`.`id` AND d.`status` <> 'RETIRED' AND d.`published_version` IS NULL);
--> statement-breakpoint
-- Set by measure_readiness_update from the columns just written; again here in case no column changed.
UPDATE `measures` SET
    `readiness_blocked` = CASE WHEN `state` <> 'IMPLEMENTED' OR (`evidence_required` = 1 AND `evidence_until` IS NULL) OR coalesce(`unapproved_documents`, 0) > 0 OR (`test_interval_days` IS NOT NULL AND `last_tested_on` IS NULL) OR coalesce(`last_test_result`, 'EFFECTIVE') <> 'EFFECTIVE' THEN 1 ELSE 0 END,
    `ready_until` = min(CASE WHEN `evidence_required` = 1 THEN coalesce(`evidence_until`, '9999-12-31') ELSE '9999-12-31' END, coalesce(`next_test_on`, '9999-12-31'));
--> statement-breakpoint
UPDATE `requirements` SET
    `readiness_measures` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE'),
    `readiness_blocked` = (SELECT count(*) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE' AND coalesce(m.`readiness_blocked`, 1) = 1),
    `ready_until` = (SELECT min(m.`ready_until`) FROM `requirement_measures` rm JOIN `measures` m ON m.`id` = rm.`measure_id` WHERE rm.`requirement_id` = `requirements`.`id` AND m.`state` <> 'NOT_APPLICABLE');
