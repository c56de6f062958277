// A real SMTP server on loopback (smtp-server, no STARTTLS) that parses each message back with mailparser, and the
// settings that send to it: what the notification and link-mail tests send through.
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { loadConfig, type MailSettings } from '../src/config.ts';

export interface LoopbackSmtp {
  port: number;
  /** Every message taken, parsed, in order. */
  received: ParsedMail[];
  /** Recipients to refuse (the server answers 550 at RCPT TO) until removed. */
  refuse: Set<string>;
  close(): Promise<void>;
}

/** Started by the test file that uses it, on 127.0.0.1 and a free port; that file closes it. */
export async function startLoopbackSmtp(): Promise<LoopbackSmtp> {
  const received: ParsedMail[] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address)) callback(new Error('550 mailbox unavailable'));
      else callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          received.push(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    received,
    refuse,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The environment that mails through the loopback server on `port` (it offers no STARTTLS: SMTP_INSECURE). */
export function loopbackMailEnv(port: number): Record<string, string> {
  return {
    SMTP_URL: `smtp://127.0.0.1:${port}`,
    // test/core/smtp-tls.test.ts has the refusal without this.
    SMTP_INSECURE: 'true',
    MAIL_FROM: 'Compliance <compliance@example.test>',
  };
}

/** The mail settings of loopbackMailEnv. */
export function loopbackMailSettings(port: number): MailSettings {
  const settings = loadConfig(loopbackMailEnv(port)).mail;
  if (!settings) throw new Error('no mail settings');
  return settings;
}
