// One run of the notification engine as both hosts schedule it (Node's timer, the Worker's Cron Trigger).
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { type NotifyReport, runNotifications } from './engine.ts';
import type { MailerFactory } from './mailer.ts';

export async function notifyOnce(options: {
  db: Db;
  config: Pick<Config, 'mail' | 'publicUrl'>;
  /** The host's SMTP client: nodemailer on Node, worker-mailer in workerd. */
  mailer: MailerFactory;
  now: Date;
  log?: (line: string) => void;
}): Promise<NotifyReport> {
  const { config } = options;
  return runNotifications({
    db: options.db,
    now: options.now,
    mailer: config.mail ? options.mailer(config.mail) : null,
    publicUrl: config.publicUrl,
    log: options.log,
  });
}

export function describeReport(report: NotifyReport): string {
  return `notifications: ${report.changes_read} change(s) read, ${report.notifications_created} notification(s) made, ${report.emails_sent} email(s) sent, ${report.emails_failed} failed, ${report.emails_skipped} skipped`;
}
