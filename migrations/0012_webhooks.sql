CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`events` text NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_until` text,
	`enabled` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_org_idx` ON `webhook_endpoints` (`organization_id`,`enabled`);--> statement-breakpoint
CREATE TABLE `webhook_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`retry_until` text NOT NULL,
	`locked_until` text,
	`last_attempt_at` text,
	`last_status_code` integer,
	`last_error` text,
	`delivered_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_messages_due_idx` ON `webhook_messages` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_messages_endpoint_idx` ON `webhook_messages` (`endpoint_id`,`created_at`,`id`);--> statement-breakpoint
-- The outbox of record changes: every history row of an organization with enabled endpoints becomes one message per
-- endpoint whose events match, in the same transaction as the change (src/webhooks/events.ts names the types).
CREATE TRIGGER `record_changes_webhook_outbox` AFTER INSERT ON `record_changes`
WHEN EXISTS (SELECT 1 FROM `webhook_endpoints` WHERE `organization_id` = new.`organization_id` AND `enabled` = 1)
BEGIN
  INSERT INTO `webhook_messages` (`id`, `organization_id`, `endpoint_id`, `event_type`, `payload`, `status`, `attempts`, `next_attempt_at`, `retry_until`, `created_at`)
  SELECT 'msg_' || lower(hex(randomblob(12))), e.`organization_id`, e.`id`, t.`type`,
    json_object('type', t.`type`, 'timestamp', new.`created_at`, 'data', json_object(
      'organization_id', new.`organization_id`, 'kind', new.`kind`, 'id', new.`record_id`, 'action', new.`action`,
      'change_id', new.`id`, 'tool', new.`tool`, 'surface', new.`surface`, 'user_id', new.`user_id`,
      'before', json(new.`before`), 'after', json(new.`after`))),
    'pending', 0, new.`created_at`,
    strftime('%Y-%m-%dT%H:%M:%fZ', new.`created_at`, '+1 day'), new.`created_at`
  FROM `webhook_endpoints` e,
    (SELECT new.`kind` || '.' || CASE new.`action` WHEN 'add' THEN 'created' WHEN 'update' THEN 'updated'
      WHEN 'delete' THEN 'deleted' WHEN 'link' THEN 'linked' ELSE 'unlinked' END AS `type`) t
  WHERE e.`organization_id` = new.`organization_id` AND e.`enabled` = 1
    AND EXISTS (SELECT 1 FROM json_each(e.`events`) j
      WHERE j.`value` IN (t.`type`, new.`kind` || '.*', '*'));
END;
