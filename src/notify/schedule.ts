// One run of the work that comes due as both hosts schedule it (Node's timer, the Worker's Cron Trigger, the CLI's
// `notify`): the notification engine, then the scheduled webhook events (src/webhooks/scheduled.ts).
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { enqueueScheduledEvents } from '../webhooks/scheduled.ts';
import { type NotifyReport, runNotifications } from './engine.ts';
import type { MailerFactory } from './mailer.ts';

export async function notifyOnce(options: {
  db: Db;
  config: Pick<Config, 'mail' | 'publicUrl'>;
  /** The host's SMTP client: nodemailer on Node, worker-mailer in workerd. */
  mailer: MailerFactory;
  now: Date;
  log?: (line: string) => void;
}): Promise<NotifyReport & { webhook_events: number }> {
  const { config } = options;
  const report = await runNotifications({
    db: options.db,
    now: options.now,
    mailer: config.mail ? options.mailer(config.mail) : null,
    publicUrl: config.publicUrl,
    log: options.log,
  });
  return { ...report, webhook_events: await enqueueScheduledEvents(options.db, options.now) };
}

export function describeReport(report: NotifyReport & { webhook_events?: number }): string {
  return `notifications: ${report.changes_read} change(s) read, ${report.notifications_created} notification(s) made, ${report.emails_sent} email(s) sent, ${report.emails_failed} failed, ${report.emails_skipped} skipped; ${report.webhook_events ?? 0} scheduled webhook event(s)`;
}
