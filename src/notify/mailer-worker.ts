// Worker's Mailer: one SMTP session per run over a TCP socket (cloudflare:sockets), TLS from the start or by STARTTLS,
// required before anything is sent unless SMTP_INSECURE; AUTH PLAIN or LOGIN; messages formatted by worker-mailer's
// Email (MIME, quoted-printable, dot-stuffing). worker-mailer's own session would go on in the clear when STARTTLS is
// not offered, credentials included.

import { connect } from 'cloudflare:sockets';
import type { Socket } from '@cloudflare/workers-types';
import { Email } from 'worker-mailer';
import type { MailSettings } from '../config.ts';
import { addressParts, type Mailer, messageOf, SMTP_TLS_REQUIRED_MESSAGE } from './mailer.ts';

const CONNECT_TIMEOUT_MS = 10_000;
const REPLY_TIMEOUT_MS = 30_000;
/** A reply (all its lines) longer than this ends the session: a server is not read without bound. */
const MAX_REPLY_BYTES = 64 * 1024;

interface Reply {
  code: number;
  lines: string[];
}

class SmtpError extends Error {}

/** Reads replies off a socket: CRLF lines, `NNN-` continued, `NNN ` last; a byte budget and a deadline each. */
class ReplyReader {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(socket: Socket) {
    this.reader = socket.readable.getReader() as unknown as ReadableStreamDefaultReader<Uint8Array>;
  }

  release(): void {
    this.reader.releaseLock();
  }

  async read(): Promise<Reply> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SmtpError('The SMTP server did not answer in time.')),
        REPLY_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([this.readReply(), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async readReply(): Promise<Reply> {
    const lines: string[] = [];
    let size = 0;
    for (;;) {
      const end = this.buffer.indexOf('\r\n');
      if (end < 0) {
        if (size + this.buffer.length > MAX_REPLY_BYTES)
          throw new SmtpError('The SMTP server sent an overlong reply.');
        const { value, done } = await this.reader.read();
        if (done) throw new SmtpError('The SMTP server closed the connection.');
        this.buffer += this.decoder.decode(value, { stream: true });
        continue;
      }
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      size += line.length + 2;
      if (size > MAX_REPLY_BYTES) throw new SmtpError('The SMTP server sent an overlong reply.');
      const match = /^(\d{3})([ -]?)(.*)$/.exec(line);
      if (!match)
        throw new SmtpError(`The SMTP server sent a line that is not a reply: ${line.slice(0, 100)}`);
      lines.push(match[3] ?? '');
      if (match[2] !== '-') return { code: Number(match[1]), lines };
    }
  }
}

/** An open session: commands written, replies read, the socket swapped for its TLS form after STARTTLS. */
class SmtpSession {
  private socket: Socket;
  private replies: ReplyReader;
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly encoder = new TextEncoder();

  constructor(socket: Socket) {
    this.socket = socket;
    this.replies = new ReplyReader(socket);
    this.writer = socket.writable.getWriter() as unknown as WritableStreamDefaultWriter<Uint8Array>;
  }

  read(): Promise<Reply> {
    return this.replies.read();
  }

  /** Sends `line` (CRLF added) and reads the reply, which must have one of the `expected` codes' first digits. */
  async command(line: string, expected: string, shown = line): Promise<Reply> {
    await this.writer.write(this.encoder.encode(`${line}\r\n`));
    return this.expect(expected, shown);
  }

  async expect(expected: string, what: string): Promise<Reply> {
    const reply = await this.read();
    if (!expected.includes(String(reply.code).charAt(0)))
      throw new SmtpError(
        `The SMTP server answered ${reply.code} to ${what}: ${reply.lines.join(' ').slice(0, 200)}`,
      );
    return reply;
  }

  async writeRaw(data: string): Promise<void> {
    await this.writer.write(this.encoder.encode(data));
  }

  /** STARTTLS accepted: the rest of the session runs over TLS (the server's certificate checked by the platform). */
  upgrade(hostname: string): void {
    this.replies.release();
    this.writer.releaseLock();
    this.socket = this.socket.startTls({ expectedServerHostname: hostname });
    this.replies = new ReplyReader(this.socket);
    this.writer = this.socket.writable.getWriter() as unknown as WritableStreamDefaultWriter<Uint8Array>;
  }

  async close(): Promise<void> {
    try {
      await this.command('QUIT', '2');
    } catch {
      // Closing anyway.
    }
    await this.socket.close().catch(() => undefined);
  }
}

/** The EHLO reply's extensions, upper case, without the greeting line. */
function extensionsOf(reply: Reply): string[] {
  return reply.lines.slice(1).map((line) => line.trim().toUpperCase());
}

function authMechanisms(extensions: string[]): string[] {
  const line = extensions.find((extension) => /^AUTH[ =]/.test(extension));
  return line ? line.slice(5).split(/\s+/) : [];
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Greeting, EHLO, TLS (STARTTLS unless implicit; required unless insecure), AUTH when credentials are set. */
async function openSession(settings: MailSettings): Promise<SmtpSession> {
  const socket = connect(
    { hostname: settings.host, port: settings.port },
    { secureTransport: settings.secure ? 'on' : 'starttls', allowHalfOpen: false },
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      socket.opened,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new SmtpError('The SMTP server did not accept the connection in time.')),
          CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    await socket.close().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const session = new SmtpSession(socket);
  try {
    await session.expect('2', 'the connection');
    let extensions = extensionsOf(await session.command('EHLO compliance-mcp.invalid', '2', 'EHLO'));
    if (!settings.secure) {
      if (extensions.includes('STARTTLS')) {
        await session.command('STARTTLS', '2');
        session.upgrade(settings.host);
        extensions = extensionsOf(await session.command('EHLO compliance-mcp.invalid', '2', 'EHLO'));
      } else if (!settings.insecure) {
        throw new SmtpError(SMTP_TLS_REQUIRED_MESSAGE);
      }
    }
    if (settings.user) {
      const mechanisms = authMechanisms(extensions);
      const password = settings.password ?? '';
      if (mechanisms.includes('PLAIN')) {
        await session.command(`AUTH PLAIN ${base64(`\0${settings.user}\0${password}`)}`, '2', 'AUTH PLAIN');
      } else if (mechanisms.includes('LOGIN')) {
        await session.command('AUTH LOGIN', '3');
        await session.command(base64(settings.user), '3', 'the user name');
        await session.command(base64(password), '2', 'the password');
      } else {
        throw new SmtpError(
          'The SMTP server offers neither AUTH PLAIN nor AUTH LOGIN for the configured user.',
        );
      }
    }
    return session;
  } catch (error) {
    await session.close();
    throw error;
  }
}

/** An address as it goes between angle brackets in MAIL FROM and RCPT TO: nothing that would end the command. */
function envelopeAddress(address: string): string {
  if (/[\s<>]/.test(address))
    throw new SmtpError(`Not an address for the SMTP envelope: ${address.slice(0, 100)}`);
  return `<${address}>`;
}

export function workerMailer(settings: MailSettings): Mailer {
  let session: SmtpSession | undefined;
  // A session that could not be opened (refused TLS, wrong password) is not tried again for each email of the run.
  let unavailable: unknown;
  // One message at a time on the session, in the order they were given.
  let queue: Promise<unknown> = Promise.resolve();
  const sendOne = async (email: Parameters<Mailer['send']>[0]) => {
    if (unavailable !== undefined) throw unavailable;
    try {
      session ??= await openSession(settings);
    } catch (error) {
      unavailable = error;
      throw error;
    }
    const message = new Email({ ...messageOf(settings, email), from: addressParts(settings.from) });
    try {
      await session.command(`MAIL FROM:${envelopeAddress(message.from.email)}`, '2', 'MAIL FROM');
      for (const recipient of message.to)
        await session.command(`RCPT TO:${envelopeAddress(recipient.email)}`, '2', 'RCPT TO');
      await session.command('DATA', '3');
      await session.writeRaw(message.getEmailData());
      await session.expect('2', 'the message');
    } catch (error) {
      // A refused message leaves the session usable for the next one; a broken session is opened again.
      const reset = await session.command('RSET', '2').then(
        () => true,
        () => false,
      );
      if (!reset) {
        const broken = session;
        session = undefined;
        await broken.close();
      }
      throw error;
    }
  };
  return {
    send(email) {
      const sent = queue.then(() => sendOne(email));
      queue = sent.catch(() => undefined);
      return sent;
    },
    async close() {
      await queue;
      const current = session;
      session = undefined;
      await current?.close();
    },
  };
}
