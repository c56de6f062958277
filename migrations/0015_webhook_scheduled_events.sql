CREATE TABLE `webhook_scheduled_events` (
	`organization_id` text NOT NULL,
	`event_key` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`organization_id`, `event_key`)
);
