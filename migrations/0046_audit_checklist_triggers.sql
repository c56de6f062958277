-- An audit's checklist results go with their audit and with their requirement, however these are deleted (a
-- framework's requirements go with it); a deleted nonconformity or evidence item is no longer named by a result.
-- A result whose requirement leaves the audit's scope is kept (a scope rewrite deletes and inserts its links) and
-- read again when the requirement comes back into scope.
CREATE TRIGGER `audit_checklist_results_audit_delete` AFTER DELETE ON `audits` BEGIN
  DELETE FROM `audit_checklist_results` WHERE `audit_id` = old.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `audit_checklist_results_requirement_delete` AFTER DELETE ON `requirements` BEGIN
  DELETE FROM `audit_checklist_results` WHERE `requirement_id` = old.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `audit_checklist_results_nonconformity_delete` AFTER DELETE ON `nonconformities` BEGIN
  UPDATE `audit_checklist_results` SET `nonconformity_id` = NULL WHERE `nonconformity_id` = old.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `audit_checklist_results_evidence_delete` AFTER DELETE ON `evidence` BEGIN
  UPDATE `audit_checklist_results` SET `evidence_id` = NULL WHERE `evidence_id` = old.`id`;
END;
