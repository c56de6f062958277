-- Existing risks keep their meaning under the default risk method (src/tools/risk-method.ts): the 5x5 of before, low
-- 1-7, medium 8-14, high 15-25 (the bands the web's heat map showed), appetite medium. No organization has a method of
-- its own yet, so every risk's levels are derived with these thresholds; scores are not touched.
UPDATE `risks` SET
  `inherent_level` = CASE WHEN `inherent_score` >= 15 THEN 'high' WHEN `inherent_score` >= 8 THEN 'medium' ELSE 'low' END,
  `residual_level` = CASE WHEN `residual_score` >= 15 THEN 'high' WHEN `residual_score` >= 8 THEN 'medium' ELSE 'low' END,
  `above_appetite` = `residual_score` >= 15;
--> statement-breakpoint
-- A risk's current acceptance is its latest one not revoked: its expiry and accepted score are kept on the risk.
CREATE TRIGGER `risk_acceptances_current_insert` AFTER INSERT ON `risk_acceptances` BEGIN
  UPDATE `risks` SET
    `accepted_until` = (SELECT a.`expires_on` FROM `risk_acceptances` a WHERE a.`risk_id` = new.`risk_id` AND a.`revoked_on` IS NULL ORDER BY a.`accepted_on` DESC, a.`created_at` DESC, a.`id` DESC LIMIT 1),
    `accepted_score` = (SELECT a.`accepted_score` FROM `risk_acceptances` a WHERE a.`risk_id` = new.`risk_id` AND a.`revoked_on` IS NULL ORDER BY a.`accepted_on` DESC, a.`created_at` DESC, a.`id` DESC LIMIT 1)
  WHERE `id` = new.`risk_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `risk_acceptances_current_update` AFTER UPDATE OF `revoked_on`, `expires_on`, `accepted_on`, `accepted_score` ON `risk_acceptances` BEGIN
  UPDATE `risks` SET
    `accepted_until` = (SELECT a.`expires_on` FROM `risk_acceptances` a WHERE a.`risk_id` = new.`risk_id` AND a.`revoked_on` IS NULL ORDER BY a.`accepted_on` DESC, a.`created_at` DESC, a.`id` DESC LIMIT 1),
    `accepted_score` = (SELECT a.`accepted_score` FROM `risk_acceptances` a WHERE a.`risk_id` = new.`risk_id` AND a.`revoked_on` IS NULL ORDER BY a.`accepted_on` DESC, a.`created_at` DESC, a.`id` DESC LIMIT 1)
  WHERE `id` = new.`risk_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `risk_acceptances_current_delete` AFTER DELETE ON `risk_acceptances` BEGIN
  UPDATE `risks` SET
    `accepted_until` = (SELECT a.`expires_on` FROM `risk_acceptances` a WHERE a.`risk_id` = old.`risk_id` AND a.`revoked_on` IS NULL ORDER BY a.`accepted_on` DESC, a.`created_at` DESC, a.`id` DESC LIMIT 1),
    `accepted_score` = (SELECT a.`accepted_score` FROM `risk_acceptances` a WHERE a.`risk_id` = old.`risk_id` AND a.`revoked_on` IS NULL ORDER BY a.`accepted_on` DESC, a.`created_at` DESC, a.`id` DESC LIMIT 1)
  WHERE `id` = old.`risk_id`;
END;
--> statement-breakpoint
-- The search index of risk acceptances (as migrations/0002_fts_search.sql, folding accents as 0020).
CREATE VIRTUAL TABLE "risk_acceptances_fts" USING fts5("rationale", content='risk_acceptances', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
CREATE TRIGGER "risk_acceptances_fts_insert" AFTER INSERT ON "risk_acceptances" BEGIN
  INSERT INTO "risk_acceptances_fts"(rowid, "rationale") VALUES (new.rowid, new."rationale");
END;
--> statement-breakpoint
CREATE TRIGGER "risk_acceptances_fts_delete" AFTER DELETE ON "risk_acceptances" BEGIN
  INSERT INTO "risk_acceptances_fts"("risk_acceptances_fts", rowid, "rationale") VALUES ('delete', old.rowid, old."rationale");
END;
--> statement-breakpoint
CREATE TRIGGER "risk_acceptances_fts_update" AFTER UPDATE OF "rationale" ON "risk_acceptances" BEGIN
  INSERT INTO "risk_acceptances_fts"("risk_acceptances_fts", rowid, "rationale") VALUES ('delete', old.rowid, old."rationale");
  INSERT INTO "risk_acceptances_fts"(rowid, "rationale") VALUES (new.rowid, new."rationale");
END;
