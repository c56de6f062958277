CREATE INDEX `vendors_org_assessment_due_idx` ON `vendors` (`organization_id`,coalesce("assessed_until", ''),`id`);
