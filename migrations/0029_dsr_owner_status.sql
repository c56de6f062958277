DROP INDEX `data_subject_requests_org_owner_idx`;--> statement-breakpoint
CREATE INDEX `data_subject_requests_org_owner_idx` ON `data_subject_requests` (`organization_id`,`owner_id`,`status`);