// The Worker's Cron Triggers (wrangler.toml [triggers]), outside src/worker.ts: workerd takes every export of the
// Worker's main module for an entrypoint, so constants cannot be exported from there.

/** Every minute: webhook deliveries due (retries, and what a write's own after-response run left). */
export const DELIVERY_CRON = '* * * * *';

/**
 * Messages one delivery run sends: 2 database requests + one fetch each = 42 subrequests, under the Free plan's 50
 * per invocation (docs/worker.md).
 */
export const CRON_DELIVERIES = 40;

/** Hourly: notifications and the database upkeep; every other trigger but deliveries sends notifications only. */
export const UPKEEP_CRON = '17 * * * *';
