-- A mapping proposal goes with its measure and with either of its requirements: the tools delete those records in
-- batches of their own (with history), so the proposals pointing at them are removed here, whatever deletes them.
CREATE TRIGGER `mapping_proposals_measure_delete` AFTER DELETE ON `measures` BEGIN
  DELETE FROM `mapping_proposals` WHERE `measure_id` = old.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `mapping_proposals_requirement_delete` AFTER DELETE ON `requirements` BEGIN
  DELETE FROM `mapping_proposals` WHERE `requirement_id` = old.`id` OR `source_requirement_id` = old.`id`;
END;
