-- Search indexes of the access review registers (as migrations/0002_fts_search.sql, folding accents as 0020).

CREATE VIRTUAL TABLE "access_reviews_fts" USING fts5("name", "description", content='access_reviews', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
CREATE TRIGGER "access_reviews_fts_insert" AFTER INSERT ON "access_reviews" BEGIN
  INSERT INTO "access_reviews_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
CREATE TRIGGER "access_reviews_fts_delete" AFTER DELETE ON "access_reviews" BEGIN
  INSERT INTO "access_reviews_fts"("access_reviews_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
END;
--> statement-breakpoint
CREATE TRIGGER "access_reviews_fts_update" AFTER UPDATE OF "name", "description" ON "access_reviews" BEGIN
  INSERT INTO "access_reviews_fts"("access_reviews_fts", rowid, "name", "description") VALUES ('delete', old.rowid, old."name", old."description");
  INSERT INTO "access_reviews_fts"(rowid, "name", "description") VALUES (new.rowid, new."name", new."description");
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE "access_review_entries_fts" USING fts5("account", "system", "access_level", content='access_review_entries', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
CREATE TRIGGER "access_review_entries_fts_insert" AFTER INSERT ON "access_review_entries" BEGIN
  INSERT INTO "access_review_entries_fts"(rowid, "account", "system", "access_level") VALUES (new.rowid, new."account", new."system", new."access_level");
END;
--> statement-breakpoint
CREATE TRIGGER "access_review_entries_fts_delete" AFTER DELETE ON "access_review_entries" BEGIN
  INSERT INTO "access_review_entries_fts"("access_review_entries_fts", rowid, "account", "system", "access_level") VALUES ('delete', old.rowid, old."account", old."system", old."access_level");
END;
--> statement-breakpoint
CREATE TRIGGER "access_review_entries_fts_update" AFTER UPDATE OF "account", "system", "access_level" ON "access_review_entries" BEGIN
  INSERT INTO "access_review_entries_fts"("access_review_entries_fts", rowid, "account", "system", "access_level") VALUES ('delete', old.rowid, old."account", old."system", old."access_level");
  INSERT INTO "access_review_entries_fts"(rowid, "account", "system", "access_level") VALUES (new.rowid, new."account", new."system", new."access_level");
END;
