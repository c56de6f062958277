-- A vendor keeps the latest expiry of its assessments (assessed_until), so "due for assessment" reads an index range:
-- every insert, change of expiry or vendor, and delete of an assessment sets it again from the vendor's assessments.
-- Existing vendors get it from the assessments they have.
CREATE TRIGGER `vendor_assessments_until_insert` AFTER INSERT ON `vendor_assessments` BEGIN
  UPDATE `vendors` SET `assessed_until` = (SELECT max(a.`expires_on`) FROM `vendor_assessments` a WHERE a.`vendor_id` = new.`vendor_id`)
  WHERE `id` = new.`vendor_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `vendor_assessments_until_update` AFTER UPDATE OF `expires_on`, `vendor_id` ON `vendor_assessments` BEGIN
  UPDATE `vendors` SET `assessed_until` = (SELECT max(a.`expires_on`) FROM `vendor_assessments` a WHERE a.`vendor_id` = `vendors`.`id`)
  WHERE `id` IN (old.`vendor_id`, new.`vendor_id`);
END;
--> statement-breakpoint
CREATE TRIGGER `vendor_assessments_until_delete` AFTER DELETE ON `vendor_assessments` BEGIN
  UPDATE `vendors` SET `assessed_until` = (SELECT max(a.`expires_on`) FROM `vendor_assessments` a WHERE a.`vendor_id` = old.`vendor_id`)
  WHERE `id` = old.`vendor_id`;
END;
--> statement-breakpoint
UPDATE `vendors` SET `assessed_until` = (SELECT max(a.`expires_on`) FROM `vendor_assessments` a WHERE a.`vendor_id` = `vendors`.`id`);
