CREATE TABLE `data_subject_request_assets` (
	`data_subject_request_id` text NOT NULL,
	`asset_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`data_subject_request_id`, `asset_id`)
);
--> statement-breakpoint
CREATE INDEX `data_subject_request_assets_asset_idx` ON `data_subject_request_assets` (`asset_id`);--> statement-breakpoint
CREATE TABLE `data_subject_request_processing_activities` (
	`data_subject_request_id` text NOT NULL,
	`processing_activity_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`data_subject_request_id`, `processing_activity_id`)
);
--> statement-breakpoint
CREATE INDEX `data_subject_request_processing_activities_processing_activity_idx` ON `data_subject_request_processing_activities` (`processing_activity_id`);--> statement-breakpoint
CREATE TABLE `data_subject_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`reference` text NOT NULL,
	`request_type` text NOT NULL,
	`received_on` text NOT NULL,
	`identity_verified_on` text,
	`verification_method` text,
	`due_on` text NOT NULL,
	`extension_months` integer DEFAULT 0 NOT NULL,
	`extension_reason` text,
	`status` text NOT NULL,
	`response_sent_on` text,
	`owner_id` text,
	`note` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `data_subject_requests_org_created_idx` ON `data_subject_requests` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `data_subject_requests_org_updated_idx` ON `data_subject_requests` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `data_subject_requests_org_reference_idx` ON `data_subject_requests` (`organization_id`,`reference`,`id`);--> statement-breakpoint
CREATE INDEX `data_subject_requests_org_due_idx` ON `data_subject_requests` (`organization_id`,`due_on`,`id`);--> statement-breakpoint
CREATE INDEX `data_subject_requests_org_received_idx` ON `data_subject_requests` (`organization_id`,`received_on`,`id`);--> statement-breakpoint
CREATE INDEX `data_subject_requests_org_status_idx` ON `data_subject_requests` (`organization_id`,`status`,`due_on`);--> statement-breakpoint
CREATE INDEX `data_subject_requests_org_owner_idx` ON `data_subject_requests` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `dpia_measures` (
	`dpia_id` text NOT NULL,
	`measure_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`dpia_id`, `measure_id`)
);
--> statement-breakpoint
CREATE INDEX `dpia_measures_measure_idx` ON `dpia_measures` (`measure_id`);--> statement-breakpoint
CREATE TABLE `dpia_processing_activities` (
	`dpia_id` text NOT NULL,
	`processing_activity_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`dpia_id`, `processing_activity_id`)
);
--> statement-breakpoint
CREATE INDEX `dpia_processing_activities_processing_activity_idx` ON `dpia_processing_activities` (`processing_activity_id`);--> statement-breakpoint
CREATE TABLE `dpia_risks` (
	`dpia_id` text NOT NULL,
	`risk_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`dpia_id`, `risk_id`)
);
--> statement-breakpoint
CREATE INDEX `dpia_risks_risk_idx` ON `dpia_risks` (`risk_id`);--> statement-breakpoint
CREATE TABLE `dpias` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`status` text NOT NULL,
	`screening_criteria` text DEFAULT '[]' NOT NULL,
	`necessity` text,
	`dpo_advice` text,
	`decision` text,
	`prior_consultation` integer DEFAULT false NOT NULL,
	`owner_id` text,
	`approver_id` text,
	`approved_on` text,
	`review_interval_days` integer,
	`last_reviewed_on` text,
	`last_review_note` text,
	`next_review_on` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `dpias_org_created_idx` ON `dpias` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `dpias_org_updated_idx` ON `dpias` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `dpias_org_title_idx` ON `dpias` (`organization_id`,`title`,`id`);--> statement-breakpoint
CREATE INDEX `dpias_org_status_idx` ON `dpias` (`organization_id`,`status`);--> statement-breakpoint
CREATE INDEX `dpias_org_owner_idx` ON `dpias` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE INDEX `dpias_org_review_idx` ON `dpias` (`organization_id`,`next_review_on`,`id`);--> statement-breakpoint
CREATE TABLE `incident_actions` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`incident_id` text NOT NULL,
	`at` text NOT NULL,
	`actor_id` text,
	`action` text NOT NULL,
	`outcome` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `incident_actions_org_created_idx` ON `incident_actions` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `incident_actions_org_updated_idx` ON `incident_actions` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `incident_actions_org_at_idx` ON `incident_actions` (`organization_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `incident_actions_incident_idx` ON `incident_actions` (`incident_id`,`at`);--> statement-breakpoint
CREATE TABLE `incident_assets` (
	`incident_id` text NOT NULL,
	`asset_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`incident_id`, `asset_id`)
);
--> statement-breakpoint
CREATE INDEX `incident_assets_asset_idx` ON `incident_assets` (`asset_id`);--> statement-breakpoint
CREATE TABLE `incident_clock_queue` (
	`incident_id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`token` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `incident_clock_queue_org_idx` ON `incident_clock_queue` (`organization_id`);--> statement-breakpoint
CREATE TABLE `incident_data_classifications` (
	`incident_id` text NOT NULL,
	`data_classification_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`incident_id`, `data_classification_id`)
);
--> statement-breakpoint
CREATE INDEX `incident_data_classifications_data_classification_idx` ON `incident_data_classifications` (`data_classification_id`);--> statement-breakpoint
CREATE TABLE `incident_deadlines` (
	`organization_id` text NOT NULL,
	`incident_id` text NOT NULL,
	`regime` text NOT NULL,
	`stage` text NOT NULL,
	`due_at` text,
	`due_on` text,
	`sent_at` text,
	`open` integer NOT NULL,
	PRIMARY KEY(`incident_id`, `regime`, `stage`)
);
--> statement-breakpoint
CREATE INDEX `incident_deadlines_open_idx` ON `incident_deadlines` (`organization_id`,`open`,`due_at`);--> statement-breakpoint
CREATE TABLE `incident_notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`incident_id` text NOT NULL,
	`regime` text NOT NULL,
	`stage` text NOT NULL,
	`recipient` text NOT NULL,
	`sent_at` text NOT NULL,
	`reference` text,
	`document_id` text,
	`note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `incident_notifications_org_created_idx` ON `incident_notifications` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `incident_notifications_org_updated_idx` ON `incident_notifications` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `incident_notifications_org_sent_idx` ON `incident_notifications` (`organization_id`,`sent_at`,`id`);--> statement-breakpoint
CREATE INDEX `incident_notifications_incident_idx` ON `incident_notifications` (`incident_id`,`regime`,`stage`);--> statement-breakpoint
CREATE TABLE `incident_obligations` (
	`incident_id` text NOT NULL,
	`obligation_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`incident_id`, `obligation_id`)
);
--> statement-breakpoint
CREATE INDEX `incident_obligations_obligation_idx` ON `incident_obligations` (`obligation_id`);--> statement-breakpoint
CREATE TABLE `incident_processing_activities` (
	`incident_id` text NOT NULL,
	`processing_activity_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`incident_id`, `processing_activity_id`)
);
--> statement-breakpoint
CREATE INDEX `incident_processing_activities_processing_activity_idx` ON `incident_processing_activities` (`processing_activity_id`);--> statement-breakpoint
CREATE TABLE `incident_risks` (
	`incident_id` text NOT NULL,
	`risk_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`incident_id`, `risk_id`)
);
--> statement-breakpoint
CREATE INDEX `incident_risks_risk_idx` ON `incident_risks` (`risk_id`);--> statement-breakpoint
CREATE TABLE `incident_vendors` (
	`incident_id` text NOT NULL,
	`vendor_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`incident_id`, `vendor_id`)
);
--> statement-breakpoint
CREATE INDEX `incident_vendors_vendor_idx` ON `incident_vendors` (`vendor_id`);--> statement-breakpoint
CREATE TABLE `incidents` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`occurred_at` text,
	`detected_at` text NOT NULL,
	`reported_by_id` text,
	`owner_id` text,
	`severity` text NOT NULL,
	`category` text NOT NULL,
	`status` text NOT NULL,
	`personal_data` integer DEFAULT false NOT NULL,
	`affected_people` integer,
	`gdpr_risk` text,
	`nis2_significant` integer DEFAULT false NOT NULL,
	`dora_major_at` text,
	`regimes` text,
	`root_cause` text,
	`lessons_learned` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `incidents_org_created_idx` ON `incidents` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `incidents_org_updated_idx` ON `incidents` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `incidents_org_title_idx` ON `incidents` (`organization_id`,`title`,`id`);--> statement-breakpoint
CREATE INDEX `incidents_org_detected_idx` ON `incidents` (`organization_id`,`detected_at`,`id`);--> statement-breakpoint
CREATE INDEX `incidents_org_status_idx` ON `incidents` (`organization_id`,`status`,`detected_at`);--> statement-breakpoint
CREATE INDEX `incidents_org_severity_idx` ON `incidents` (`organization_id`,`severity`,`detected_at`);--> statement-breakpoint
CREATE INDEX `incidents_org_owner_idx` ON `incidents` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE TABLE `processing_activities` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`role` text NOT NULL,
	`controllers` text,
	`purposes` text NOT NULL,
	`lawful_bases` text DEFAULT '[]' NOT NULL,
	`special_category_condition` text,
	`data_subject_categories` text DEFAULT '[]' NOT NULL,
	`personal_data_categories` text DEFAULT '[]' NOT NULL,
	`recipients` text,
	`transfer_countries` text DEFAULT '[]' NOT NULL,
	`transfer_safeguard` text,
	`retention` text,
	`owner_id` text,
	`review_interval_days` integer,
	`last_reviewed_on` text,
	`last_review_note` text,
	`next_review_on` text,
	`write_nonce` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `processing_activities_org_created_idx` ON `processing_activities` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `processing_activities_org_updated_idx` ON `processing_activities` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `processing_activities_org_name_idx` ON `processing_activities` (`organization_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `processing_activities_org_role_idx` ON `processing_activities` (`organization_id`,`role`);--> statement-breakpoint
CREATE INDEX `processing_activities_org_owner_idx` ON `processing_activities` (`organization_id`,`owner_id`);--> statement-breakpoint
CREATE INDEX `processing_activities_org_review_idx` ON `processing_activities` (`organization_id`,`next_review_on`,`id`);--> statement-breakpoint
CREATE TABLE `processing_activity_data_classifications` (
	`processing_activity_id` text NOT NULL,
	`data_classification_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`processing_activity_id`, `data_classification_id`)
);
--> statement-breakpoint
CREATE INDEX `processing_activity_data_classifications_data_classification_idx` ON `processing_activity_data_classifications` (`data_classification_id`);--> statement-breakpoint
CREATE TABLE `processing_activity_measures` (
	`processing_activity_id` text NOT NULL,
	`measure_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`processing_activity_id`, `measure_id`)
);
--> statement-breakpoint
CREATE INDEX `processing_activity_measures_measure_idx` ON `processing_activity_measures` (`measure_id`);--> statement-breakpoint
CREATE TABLE `processing_activity_vendors` (
	`processing_activity_id` text NOT NULL,
	`vendor_id` text NOT NULL,
	`organization_id` text NOT NULL,
	PRIMARY KEY(`processing_activity_id`, `vendor_id`)
);
--> statement-breakpoint
CREATE INDEX `processing_activity_vendors_vendor_idx` ON `processing_activity_vendors` (`vendor_id`);--> statement-breakpoint
ALTER TABLE `organizations` ADD `settings` text DEFAULT '{}' NOT NULL;