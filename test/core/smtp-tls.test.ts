// SMTP on the Node host (nodemailer): TLS is required, from the start or by STARTTLS, before anything is sent. A
// loopback server that offers no STARTTLS (and would take AUTH in the clear) never gets the password, unless the
// operator set SMTP_INSECURE=true.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { SMTP_TLS_REQUIRED_MESSAGE } from '../../src/notify/mailer.ts';
import { nodeMailer } from '../../src/notify/mailer-node.ts';

const EMAIL = { to: 'alice@example.test', subject: 'A risk you own', text: 'Body', headers: {} };

interface LoopbackSmtp {
  port: number;
  /** AUTH attempts the server saw: user name and password. */
  auths: { username: string; password: string }[];
  messages: number;
  close(): Promise<void>;
}

const servers: LoopbackSmtp[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** An SMTP server on loopback that accepts AUTH over plain TCP; STARTTLS (its own self-signed certificate) if asked. */
async function loopbackSmtp(offerStartTls: boolean): Promise<LoopbackSmtp> {
  const auths: LoopbackSmtp['auths'] = [];
  let messages = 0;
  const server = new SMTPServer({
    allowInsecureAuth: true,
    disabledCommands: offerStartTls ? [] : ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      auths.push({ username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        messages += 1;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const smtp: LoopbackSmtp = {
    port: (server.server.address() as AddressInfo).port,
    auths,
    get messages() {
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  servers.push(smtp);
  return smtp;
}

function mailerFor(port: number, extra: Record<string, string> = {}) {
  const config = loadConfig({
    SMTP_URL: `smtp://notify:secret%20password@127.0.0.1:${port}`,
    MAIL_FROM: 'Compliance <compliance@example.test>',
    ...extra,
  });
  if (!config.mail) throw new Error('no mail settings');
  return nodeMailer(config.mail);
}

describe('SMTP over TLS only', () => {
  it('sends nothing, the password neither, to a server that offers no STARTTLS', async () => {
    const smtp = await loopbackSmtp(false);
    const mailer = mailerFor(smtp.port);
    const refusal = await mailer.send(EMAIL).catch((error: unknown) => error);
    await mailer.close();
    expect(refusal).toBeInstanceOf(Error);
    expect((refusal as Error).message).toContain(SMTP_TLS_REQUIRED_MESSAGE);
    expect(smtp.auths).toEqual([]);
    expect(smtp.messages).toBe(0);
  });

  it('asks for STARTTLS when offered and does not fall back when the certificate is not trusted', async () => {
    const smtp = await loopbackSmtp(true);
    const mailer = mailerFor(smtp.port);
    const refusal = await mailer.send(EMAIL).catch((error: unknown) => error);
    await mailer.close();
    // The server's certificate is self-signed: the TLS handshake fails, and nothing goes in the clear instead.
    expect((refusal as Error).message).toMatch(/certificate/i);
    expect(smtp.auths).toEqual([]);
    expect(smtp.messages).toBe(0);
  });

  it('signs in and sends over plain TCP only with SMTP_INSECURE=true', async () => {
    const smtp = await loopbackSmtp(false);
    const mailer = mailerFor(smtp.port, { SMTP_INSECURE: 'true' });
    await mailer.send(EMAIL);
    await mailer.close();
    expect(smtp.auths).toEqual([{ username: 'notify', password: 'secret password' }]);
    expect(smtp.messages).toBe(1);
  });
});
