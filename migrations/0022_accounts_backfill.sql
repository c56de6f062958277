-- Existing data keeps its meaning under the invitation rules (docs/security.md, "Accounts, invitations and sign-in").
-- Accounts made before addresses were confirmed count as confirmed (they could already be added and approve).
UPDATE `users` SET `email_verified_at` = `created_at` WHERE `email_verified_at` IS NULL;
--> statement-breakpoint
-- Every membership of today stays within reach of the tokens and grants that reach it today.
UPDATE `memberships` SET `earlier_tokens` = 1;
--> statement-breakpoint
-- Tokens for all organizations reach what their holder belonged to when they were issued (an OAuth access token:
-- when its grant was given), plus the memberships above.
UPDATE `api_tokens` SET `reach_as_of` = coalesce((SELECT g.`created_at` FROM `oauth_grants` g WHERE g.`id` = `api_tokens`.`grant_id`), `created_at`);
--> statement-breakpoint
-- Sign-in failures were counted per address alone; the counters are now per address and client, under new keys.
DELETE FROM `sign_in_attempts`;
