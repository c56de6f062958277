-- A measure keeps its latest control test (by tested_on, then creation): its day and result, and the day the next test
-- is due (the latest + test_interval_days; never tested: due since the measure was created). Existing measures have
-- no interval and no tests: nothing comes due, and readiness keeps today's meaning (evidence_required 0).
CREATE TRIGGER `control_tests_latest_insert` AFTER INSERT ON `control_tests` BEGIN
  UPDATE `measures` SET
    `last_tested_on` = (SELECT t.`tested_on` FROM `control_tests` t WHERE t.`measure_id` = new.`measure_id` ORDER BY t.`tested_on` DESC, t.`created_at` DESC, t.`id` DESC LIMIT 1),
    `last_test_result` = (SELECT t.`result` FROM `control_tests` t WHERE t.`measure_id` = new.`measure_id` ORDER BY t.`tested_on` DESC, t.`created_at` DESC, t.`id` DESC LIMIT 1),
    `next_test_on` = CASE WHEN `test_interval_days` IS NULL THEN NULL ELSE coalesce(date((SELECT max(t.`tested_on`) FROM `control_tests` t WHERE t.`measure_id` = new.`measure_id`), '+' || `test_interval_days` || ' days'), substr(`created_at`, 1, 10)) END
  WHERE `id` = new.`measure_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `control_tests_latest_update` AFTER UPDATE OF `tested_on`, `result` ON `control_tests` BEGIN
  UPDATE `measures` SET
    `last_tested_on` = (SELECT t.`tested_on` FROM `control_tests` t WHERE t.`measure_id` = new.`measure_id` ORDER BY t.`tested_on` DESC, t.`created_at` DESC, t.`id` DESC LIMIT 1),
    `last_test_result` = (SELECT t.`result` FROM `control_tests` t WHERE t.`measure_id` = new.`measure_id` ORDER BY t.`tested_on` DESC, t.`created_at` DESC, t.`id` DESC LIMIT 1),
    `next_test_on` = CASE WHEN `test_interval_days` IS NULL THEN NULL ELSE coalesce(date((SELECT max(t.`tested_on`) FROM `control_tests` t WHERE t.`measure_id` = new.`measure_id`), '+' || `test_interval_days` || ' days'), substr(`created_at`, 1, 10)) END
  WHERE `id` = new.`measure_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `control_tests_latest_delete` AFTER DELETE ON `control_tests` BEGIN
  UPDATE `measures` SET
    `last_tested_on` = (SELECT t.`tested_on` FROM `control_tests` t WHERE t.`measure_id` = old.`measure_id` ORDER BY t.`tested_on` DESC, t.`created_at` DESC, t.`id` DESC LIMIT 1),
    `last_test_result` = (SELECT t.`result` FROM `control_tests` t WHERE t.`measure_id` = old.`measure_id` ORDER BY t.`tested_on` DESC, t.`created_at` DESC, t.`id` DESC LIMIT 1),
    `next_test_on` = CASE WHEN `test_interval_days` IS NULL THEN NULL ELSE coalesce(date((SELECT max(t.`tested_on`) FROM `control_tests` t WHERE t.`measure_id` = old.`measure_id`), '+' || `test_interval_days` || ' days'), substr(`created_at`, 1, 10)) END
  WHERE `id` = old.`measure_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `measures_test_due_insert` AFTER INSERT ON `measures` WHEN new.`test_interval_days` IS NOT NULL BEGIN
  UPDATE `measures` SET `next_test_on` = substr(new.`created_at`, 1, 10) WHERE `id` = new.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `measures_test_due_update` AFTER UPDATE OF `test_interval_days` ON `measures` BEGIN
  UPDATE `measures` SET `next_test_on` = CASE WHEN new.`test_interval_days` IS NULL THEN NULL ELSE coalesce(date(new.`last_tested_on`, '+' || new.`test_interval_days` || ' days'), substr(new.`created_at`, 1, 10)) END WHERE `id` = new.`id`;
END;
--> statement-breakpoint
-- The search index of control tests (as migrations/0002_fts_search.sql, folding accents as 0020).
CREATE VIRTUAL TABLE "control_tests_fts" USING fts5("sample", "notes", content='control_tests', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
CREATE TRIGGER "control_tests_fts_insert" AFTER INSERT ON "control_tests" BEGIN
  INSERT INTO "control_tests_fts"(rowid, "sample", "notes") VALUES (new.rowid, new."sample", new."notes");
END;
--> statement-breakpoint
CREATE TRIGGER "control_tests_fts_delete" AFTER DELETE ON "control_tests" BEGIN
  INSERT INTO "control_tests_fts"("control_tests_fts", rowid, "sample", "notes") VALUES ('delete', old.rowid, old."sample", old."notes");
END;
--> statement-breakpoint
CREATE TRIGGER "control_tests_fts_update" AFTER UPDATE OF "sample", "notes" ON "control_tests" BEGIN
  INSERT INTO "control_tests_fts"("control_tests_fts", rowid, "sample", "notes") VALUES ('delete', old.rowid, old."sample", old."notes");
  INSERT INTO "control_tests_fts"(rowid, "sample", "notes") VALUES (new.rowid, new."sample", new."notes");
END;
