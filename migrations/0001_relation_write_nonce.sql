ALTER TABLE `assets` ADD `write_nonce` text;--> statement-breakpoint
ALTER TABLE `data_classifications` ADD `write_nonce` text;