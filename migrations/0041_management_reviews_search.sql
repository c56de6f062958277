-- Search index of management reviews (as migrations/0002_fts_search.sql, folding accents as 0020).

CREATE VIRTUAL TABLE "management_reviews_fts" USING fts5("title", "decisions", content='management_reviews', content_rowid='rowid', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
CREATE TRIGGER "management_reviews_fts_insert" AFTER INSERT ON "management_reviews" BEGIN
  INSERT INTO "management_reviews_fts"(rowid, "title", "decisions") VALUES (new.rowid, new."title", new."decisions");
END;
--> statement-breakpoint
CREATE TRIGGER "management_reviews_fts_delete" AFTER DELETE ON "management_reviews" BEGIN
  INSERT INTO "management_reviews_fts"("management_reviews_fts", rowid, "title", "decisions") VALUES ('delete', old.rowid, old."title", old."decisions");
END;
--> statement-breakpoint
CREATE TRIGGER "management_reviews_fts_update" AFTER UPDATE OF "title", "decisions" ON "management_reviews" BEGIN
  INSERT INTO "management_reviews_fts"("management_reviews_fts", rowid, "title", "decisions") VALUES ('delete', old.rowid, old."title", old."decisions");
  INSERT INTO "management_reviews_fts"(rowid, "title", "decisions") VALUES (new.rowid, new."title", new."decisions");
END;
