-- 0051 rebuilt record_changes (user_id nullable, person_id added), which dropped its webhook outbox trigger: the same
-- trigger again, its payload also naming the person who acted through a public link (person_id, null otherwise).
CREATE TRIGGER `record_changes_webhook_outbox` AFTER INSERT ON `record_changes`
WHEN EXISTS (SELECT 1 FROM `webhook_endpoints` WHERE `organization_id` = new.`organization_id` AND `enabled` = 1)
BEGIN
  INSERT INTO `webhook_messages` (`id`, `organization_id`, `endpoint_id`, `event_type`, `payload`, `status`, `attempts`, `next_attempt_at`, `retry_until`, `created_at`)
  SELECT 'msg_' || lower(hex(randomblob(12))), e.`organization_id`, e.`id`, t.`type`,
    json_object('type', t.`type`, 'timestamp', new.`created_at`, 'data', json_object(
      'organization_id', new.`organization_id`, 'kind', new.`kind`, 'id', new.`record_id`, 'action', new.`action`,
      'change_id', new.`id`, 'tool', new.`tool`, 'surface', new.`surface`, 'user_id', new.`user_id`,
      'person_id', new.`person_id`, 'before', json(new.`before`), 'after', json(new.`after`))),
    'pending', 0, new.`created_at`,
    strftime('%Y-%m-%dT%H:%M:%fZ', new.`created_at`, '+1 day'), new.`created_at`
  FROM `webhook_endpoints` e,
    (SELECT new.`kind` || '.' || CASE new.`action` WHEN 'add' THEN 'created' WHEN 'update' THEN 'updated'
      WHEN 'delete' THEN 'deleted' WHEN 'link' THEN 'linked' ELSE 'unlinked' END AS `type`) t
  WHERE e.`organization_id` = new.`organization_id` AND e.`enabled` = 1
    AND EXISTS (SELECT 1 FROM json_each(e.`events`) j
      WHERE j.`value` IN (t.`type`, new.`kind` || '.*', '*'));
END;
