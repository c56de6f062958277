// Every pattern run on user input, timed on its worst inputs (docs/security.md, "Input limits"). One table: each
// regular expression of src/ that repeats without bound and reads user input, as written there (read from the source,
// not copied), with the limit of what reaches it and the inputs that make a backtracking pattern work hardest; and the
// exported checks around them end to end. Each input is tried at 1/64, 1/16, 1/4 of its limit and at the limit, and
// held to a bound that grows with the length (100 ms + 2 ms per KiB, 10 times what a linear pass needs on a loaded
// machine): a pattern that backtracks quadratically misses it by far at a small length, before the long ones could
// hang the run. Every other such literal is listed with why no user input reaches it, so a new pattern fails this
// file until it is put in one list or the other.
import { readFileSync } from 'node:fs';
import ts from 'typescript-js';
import { describe, expect, it } from 'vitest';
import { isEmailAddress } from '../../src/email-address.ts';
import { multipartBoundary, parseContentDisposition } from '../../src/files/multipart.ts';
import { sanitizeFileName } from '../../src/files/sniff.ts';
import { parseRange } from '../../src/routes/files.ts';
import { parseCatalog } from '../../src/tools/catalogs/import.ts';
import { emailAddress, httpUrl, normalizeText } from '../../src/tools/fields.ts';
import { headerKey } from '../../src/tools/imports/columns.ts';
import { parseDate, splitList } from '../../src/tools/imports/values.ts';
import { parseCsv } from '../../src/tools/tables/csv-reader.ts';
import { stallingEmail } from '../attacks.ts';
import { sourceFiles } from '../source-files.ts';

const KIB = 1024;
/** A web form (MAX_FORM_BYTES). */
const FORM = 64 * KIB;
/** A request body (MAX_BODY_BYTES' default). */
const BODY = 1024 * KIB;
/** A CSV or XLSX cell (CSV_LIMITS.maxFieldLength). */
const CELL = 100_000;
/** A header or a URL: Node refuses more than 16 KB of headers; the Worker's are Cloudflare's, taken generously. */
const HEADER = 64 * KIB;
/** An OSCAL catalog given to the tool (its content's limit). */
const OSCAL = 2_000_000;

const boundMs = (length: number) => 100 + length / 512;

/**
 * Milliseconds of CPU this process has used: a check is timed in CPU time, which other processes on a loaded machine
 * do not stretch (wall time did, failing linear checks at a load average over 10 on two cores).
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** `unit` repeated to `length` characters between `head` and `tail`. */
const run =
  (head: string, unit: string, tail = '') =>
  (length: number) =>
    head + unit.repeat(Math.max(1, Math.floor((length - head.length - tail.length) / unit.length))) + tail;

type Worst = (length: number) => string;

interface LiteralCase {
  /** The literal as written in src/ (`/.../flags`). */
  pattern: string;
  /** What reaches it and its limit in characters. */
  input: string;
  limit: number;
  /** How the code runs it: split reads every match like a global replace. */
  use?: 'split';
  worst: Worst[];
}

/** The patterns of src/ that repeat without bound and read user input. */
const LITERALS: LiteralCase[] = [
  {
    pattern: '/_+/',
    input: 'an unknown argument name, split to suggest the nearest',
    limit: BODY,
    use: 'split',
    worst: [run('', '_'), run('a', '_', 'a'), run('', 'a_')],
  },
  {
    pattern: String.raw`/^::ffff:(\d+\.\d+\.\d+\.\d+)$/`,
    input: 'a client address from CLIENT_ADDRESS_HEADER',
    limit: HEADER,
    worst: [run('::ffff:', '1'), run('::ffff:1.1.1.', '1', 'x'), run('::ffff:', '1.', 'x')],
  },
  {
    pattern: '/[^a-z0-9]+/',
    input: "findTools' task text",
    limit: BODY,
    use: 'split',
    worst: [run('', ' '), run('', 'a '), run('a', '-', 'a')],
  },
  {
    pattern: String.raw`/^[^\s@]{1,64}@[^\s@.]+(?:\.[^\s@.]+)+$/`,
    input: 'sign-up email',
    limit: FORM,
    worst: [stallingEmail, run('a@', 'a.', '@'), run('', 'a')],
  },
  {
    pattern: String.raw`/\n[^\S\n]*params:/`,
    input: 'an error message holding user values',
    limit: BODY,
    use: 'split',
    worst: [run('\n', ' ', 'x'), run('', '\n ', 'x')],
  },
  {
    pattern: String.raw`/^content-disposition\s*:/i`,
    input: 'a multipart part header',
    limit: HEADER,
    worst: [run('content-disposition', ' ', 'x')],
  },
  {
    pattern: String.raw`/^[^:]*:\s*[^;]*/`,
    input: 'a multipart part header',
    limit: HEADER,
    worst: [run('', 'a'), run(':', ' ', ';'), run('', ' :')],
  },
  {
    pattern: String.raw`/^\s*multipart\/form-data\s*;/i`,
    input: 'Content-Type',
    limit: HEADER,
    worst: [run('', ' ', 'x'), run('multipart/form-data', ' ', 'x')],
  },
  {
    pattern: String.raw`/;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i`,
    input: 'Content-Type',
    limit: HEADER,
    worst: [run(';', ' ', 'x'), run('', '; boundary="'), run('', ';')],
  },
  {
    pattern: String.raw`/;\s*([a-z*]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/gi`,
    input: 'Content-Disposition',
    limit: HEADER,
    worst: [run('', '; a="'), run('; a="', '\\a'), run(';', 'a', ' '), run('; a=', ' ', '"')],
  },
  {
    pattern: "/^utf-8''(.*)$/i",
    input: 'a filename* parameter',
    limit: HEADER,
    worst: [run("utf-8''", 'a', '\nx')],
  },
  {
    pattern: String.raw`/^\/api\/v1\/orgs\/[^/]+\/files\/?$/`,
    input: 'a request path',
    limit: HEADER,
    worst: [run('/api/v1/orgs/', 'a', '/x'), run('/api/v1/orgs/', 'a/files')],
  },
  {
    pattern: String.raw`/^\s*bytes\s*=\s*(?:(\d+)\s*)?-\s*(?:(\d+)\s*)?$/i`,
    input: 'Range',
    limit: HEADER,
    worst: [run('bytes=', ' ', 'x'), run('bytes=1', ' ', 'x'), run('bytes=-', ' ', 'x'), run('bytes=', '1 ')],
  },
  {
    pattern: String.raw`/^\d+$/`,
    input: 'Content-Length of an upload',
    limit: HEADER,
    worst: [run('', '1', 'x')],
  },
  {
    pattern: String.raw`/^[.\s]+/`,
    input: 'an uploaded file name',
    limit: HEADER,
    worst: [run('', '. ', 'x')],
  },
  {
    pattern: String.raw`/(?<![.\s])[.\s]+$/`,
    input: 'an uploaded file name',
    limit: HEADER,
    worst: [run('a', '. ', 'x'), run('', 'a. ', 'x')],
  },
  {
    pattern: String.raw`/^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i`,
    input: 'an uploaded file name',
    limit: HEADER,
    worst: [run('con.', 'a', '\nx')],
  },
  {
    pattern: String.raw`/^\s*\d+\s*$/`,
    input: 'Content-Length',
    limit: HEADER,
    worst: [run('', ' ', '1x'), run('1', ' ', 'x'), run('', ' 1', 'x')],
  },
  {
    pattern: String.raw`/^127\.\d+\.\d+\.\d+$/`,
    input: 'a host name',
    limit: HEADER,
    worst: [run('127.', '1', '.1.1x'), run('127.', '1.', 'x')],
  },
  {
    pattern: String.raw`/\bmax-age=(\d+)/i`,
    input: "Cache-Control of a client's metadata document",
    limit: HEADER,
    worst: [run('', 'max-age='), run('max-age=', '1', 'x')],
  },
  {
    pattern: String.raw`/(?<!\/)\/+$/`,
    input: 'an OAuth resource path',
    limit: HEADER,
    worst: [run('a', '/', 'a'), run('', 'a/', 'x')],
  },
  {
    pattern: String.raw`/^application\/x-www-form-urlencoded\s*(;|$)/i`,
    input: 'Content-Type',
    limit: HEADER,
    worst: [run('application/x-www-form-urlencoded', ' ', 'x')],
  },
  {
    pattern: String.raw`/^application\/([\w.+-]+\+)?json\s*(;|$)/i`,
    input: 'Content-Type',
    limit: HEADER,
    worst: [run('application/', '+', 'x'), run('application/', 'a+', 'x'), run('application/json', ' ', 'x')],
  },
  {
    pattern: String.raw`/[\s_-]+/g`,
    input: "a catalog CSV's header",
    limit: CELL,
    worst: [run('', ' _-', 'x')],
  },
  {
    pattern: String.raw`/\{\{\s*insert:\s*param,\s*([^{}\s]+)\s*\}\}/g`,
    input: "an OSCAL statement's prose",
    limit: OSCAL,
    worst: [
      run('', '{{insert:param,'),
      run('{{ insert: param, a', ' ', '}'),
      run('', '{'),
      run('{{insert:param,', 'a'),
    ],
  },
  {
    pattern: String.raw`/^\d{4}-\d{2}-\d{2}([T ].*)?$/`,
    input: "listChanges' since",
    limit: BODY,
    worst: [run('2026-01-01T', 'a', '\nx')],
  },
  {
    pattern: String.raw`/[\s-]+/g`,
    input: 'an enum value',
    limit: BODY,
    worst: [run('', ' -', 'x')],
  },
  {
    pattern: String.raw`/[\s_\-.]+/g`,
    input: "an import's header",
    limit: CELL,
    worst: [run('', ' _-.', 'x')],
  },
  {
    pattern: '/[^a-z0-9]+/g',
    input: "a person's name in an import, an organization's name",
    limit: CELL,
    worst: [run('', '!@', 'a')],
  },
  {
    pattern: String.raw`/^\.+|(?<!\.)\.+$/g`,
    input: "a person's name in an import",
    limit: CELL,
    worst: [run('a', '.', 'a'), run('', '.'), run('', 'a.')],
  },
  {
    pattern: String.raw`/^[^\s@]+@[^\s@]+$/`,
    input: 'an import cell naming a person',
    limit: CELL,
    worst: [run('', 'a@'), run('a', 'a', '@ '), run('a@', 'a', '@')],
  },
  {
    pattern: String.raw`/^'+[=+\-@\t\r]/`,
    input: 'an import cell',
    limit: CELL,
    worst: [run('', "'", 'a')],
  },
  {
    pattern: String.raw`/^(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/`,
    input: 'an import cell of a date',
    limit: CELL,
    worst: [run('2026-01-01T', '1', 'x'), run('2026-01-01T', '1:', '+1'), run('2026-01-01T', '1+', 'x')],
  },
  {
    pattern: String.raw`/^\d+(\.\d+)?$/`,
    input: 'an import cell of a date',
    limit: CELL,
    worst: [run('', '1', 'x'), run('1.', '1', 'x')],
  },
  {
    pattern: String.raw`/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i`,
    input: 'an import cell of a number',
    limit: CELL,
    worst: [run('', '1', 'x'), run('1.', '1', 'x'), run('1e', '1', 'x'), run('.', '1', 'x')],
  },
  {
    pattern: String.raw`/\d+/g`,
    input: 'a requirement reference',
    limit: CELL,
    worst: [run('', '1a')],
  },
  {
    pattern: String.raw`/^[\x00-\x7f]*$/`,
    input: 'a search query',
    limit: BODY,
    worst: [run('', 'a', 'é')],
  },
  {
    pattern: String.raw`/"[^"]*(?:"|$)|\[[^\]]*(?:\]|$)|\\.|_.|\*./g`,
    input: 'an XLSX number format (255 characters are read)',
    limit: CELL,
    worst: [run('', '['), run('', '"'), run('', '\\'), run('', '_'), run('', '[a')],
  },
  {
    pattern: String.raw`/^'*[=+\-@\t\r]/`,
    input: 'a text field exported to CSV',
    limit: BODY,
    worst: [run('', "'", 'a')],
  },
  {
    pattern: '/^-+|(?<!-)-+$/g',
    input: "an organization's or register's name in a file name",
    limit: BODY,
    worst: [run('a', '-', 'a'), run('', 'a-')],
  },
  {
    pattern: '/(?<!-)-+$/',
    input: "an organization's or register's name in a file name",
    limit: BODY,
    worst: [run('a', '-', 'a'), run('', 'a-', 'a')],
  },
  {
    pattern: String.raw`/[\s,]+/`,
    input: "a form's list field",
    limit: FORM,
    use: 'split',
    worst: [run('a', ' ,', 'a')],
  },
  {
    pattern: String.raw`/^[-+]?\d+$/`,
    input: "a form's whole number",
    limit: FORM,
    worst: [run('', '1', 'x'), run('-', '1', 'x')],
  },
  {
    pattern: String.raw`/^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/`,
    input: "a form's number",
    limit: FORM,
    worst: [run('', '1', 'x'), run('1.', '1', 'x'), run('.', '1', 'x')],
  },
  {
    pattern: String.raw`/^-?\d+$/`,
    input: "a list page's filter in the URL",
    limit: HEADER,
    worst: [run('-', '1', 'x')],
  },
  {
    pattern: String.raw`/^\/orgs\/[^/]+\/evidence\/attach$/`,
    input: 'a request path',
    limit: HEADER,
    worst: [run('/orgs/', 'a', '/x'), run('/orgs/a/', 'evidence/attach')],
  },
  {
    pattern: String.raw`/^\/orgs\/[^/]+\/[^/]+\/import$/`,
    input: 'a request path',
    limit: HEADER,
    worst: [run('/orgs/', 'a', '/b/x'), run('/orgs/a/', 'b', '/importx'), run('/orgs/', 'a/import')],
  },
  {
    pattern: String.raw`/^\/orgs\/[^/]+\/audits\/aud_[0-9a-z]+\/checklist\/import$/`,
    input: 'a request path',
    limit: HEADER,
    worst: [run('/orgs/a/audits/aud_', 'a', '/x'), run('/orgs/', 'a', '/x')],
  },
  {
    pattern: String.raw`/^\/orgs\/[^/]+\/documents\/doc_[0-9a-z]+\/file$/`,
    input: 'a request path',
    limit: HEADER,
    worst: [run('/orgs/a/documents/doc_', 'a', '/x'), run('/orgs/', 'a', '/x')],
  },
  {
    pattern: String.raw`/\s+/g`,
    input: "an attached file's base64, a file name",
    limit: BODY,
    worst: [run('', ' \t', 'x')],
  },
];

interface CheckCase {
  name: string;
  limit: number;
  check: (input: string) => unknown;
  worst: Worst[];
}

/** A catalog CSV of entries each the parent of the next: walking up from each one was quadratic. */
const chainedCatalog: Worst = (length) => {
  const lines = ['ref,title,parent'];
  for (let index = 0, size = 16; size < length; index++) {
    const line = `r${index},t,${index === 0 ? '' : `r${index - 1}`}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
};

/** An OSCAL catalog whose statement's prose is `prose`. */
const oscalWith =
  (prose: Worst): Worst =>
  (length) =>
    JSON.stringify({
      catalog: {
        controls: [
          { id: 'ac-1', title: 'Policy', parts: [{ name: 'statement', prose: prose(length - 120) }] },
        ],
      },
    });

/** The exported checks around those patterns, end to end. */
const CHECKS: CheckCase[] = [
  {
    name: 'isEmailAddress (sign-up)',
    limit: FORM,
    check: isEmailAddress,
    worst: [stallingEmail, run('a@', 'a.', '@'), run('', 'a')],
  },
  {
    name: 'emailAddress (a person, zod)',
    limit: BODY,
    check: (input) => emailAddress.safeParse(input),
    worst: [stallingEmail, run('a@', 'aa.', '!'), run('', 'a.', '!'), run('', "a'", '@a.a!')],
  },
  {
    name: 'httpUrl (zod)',
    limit: BODY,
    check: (input) => httpUrl.safeParse(input),
    worst: [run('http://a/', '%'), run('http://', 'a.', '/'), run('http://a/', ' ', 'x')],
  },
  {
    name: 'normalizeText, one line and many',
    limit: BODY,
    check: (input) => [normalizeText(input, false), normalizeText(input, true)],
    worst: [run('', '\uD800'), run('', '\r\n'), run('', '\u0000 '), run('', 'e\u0301')],
  },
  {
    name: 'parseRange',
    limit: HEADER,
    check: (input) => parseRange(input, 1000),
    worst: [run('bytes=', ' ', 'x'), run('bytes=1', ' ', 'x'), run('bytes=-', ' ', 'x')],
  },
  {
    name: 'multipartBoundary and parseContentDisposition',
    limit: HEADER,
    check: (input) => [multipartBoundary(input), parseContentDisposition(input)],
    worst: [run('multipart/form-data', '; a="'), run('multipart/form-data; a="', '\\a'), run('', ';')],
  },
  {
    name: 'sanitizeFileName',
    limit: HEADER,
    check: sanitizeFileName,
    worst: [run('a', '. ', 'x'), run('', '. '), run('con.', 'a')],
  },
  {
    name: 'headerKey, parseDate, splitList (import cells)',
    limit: CELL,
    check: (input) => [headerKey(input), parseDate(input, 'DD/MM/YYYY'), splitList(input)],
    worst: [run('2026-01-01T', '1', 'x'), run('', ' _-.'), run('', ';\n')],
  },
  {
    name: 'parseCsv',
    limit: BODY,
    check: (input) => {
      try {
        return parseCsv(input);
      } catch {
        return null;
      }
    },
    worst: [run('', '"'), run('a', '""'), run('', ',\n'), run('"', 'a')],
  },
  {
    name: 'parseCatalog, OSCAL',
    limit: OSCAL,
    check: (input) => {
      try {
        return parseCatalog('oscal', input);
      } catch {
        return null;
      }
    },
    worst: [oscalWith(run('', '{{insert:param,')), oscalWith(run('{{ insert: param, a', ' ', '}'))],
  },
  {
    name: 'parseCatalog, CSV (a chain of parents)',
    limit: BODY,
    check: (input) => parseCatalog('csv', input),
    worst: [chainedCatalog],
  },
];

/** A literal as written (`/body/flags`) made a RegExp. */
function regExpOf(literal: string): RegExp {
  const end = literal.lastIndexOf('/');
  return new RegExp(literal.slice(1, end), literal.slice(end + 1));
}

/** Runs a literal as the code does: a global one or a split reads every match. */
function runLiteral(entry: LiteralCase): (input: string) => unknown {
  const pattern = regExpOf(entry.pattern);
  if (entry.use === 'split') return (input) => input.split(pattern);
  if (pattern.global) return (input) => input.replace(pattern, '');
  return (input) => pattern.test(input);
}

/** The slowest of `check` over the worst inputs, at each length up to the limit; stops at the first one over. */
function expectWithinBound(name: string, limit: number, check: (input: string) => unknown, worst: Worst[]) {
  for (const length of [limit / 64, limit / 16, limit / 4, limit].map(Math.floor)) {
    for (const [index, build] of worst.entries()) {
      const input = build(length);
      // The better of two runs: one garbage collection must not fail a linear check.
      let took = Number.POSITIVE_INFINITY;
      for (let attempt = 0; attempt < 2 && took > boundMs(input.length); attempt++) {
        const started = cpuMs();
        check(input);
        took = Math.min(took, cpuMs() - started);
      }
      expect({
        name,
        worst: index,
        length: input.length,
        withinBound: took <= boundMs(input.length),
      }).toEqual({
        name,
        worst: index,
        length: input.length,
        withinBound: true,
      });
    }
  }
}

// ---- Every literal of src/ that repeats without bound: timed above, or reading no user input. ------------------

/** Literals no user input reaches, by file, and why. */
const NOT_USER_INPUT: { files: string[]; why: string; patterns: string[] }[] = [
  {
    files: ['src/auth/crypto.ts', 'src/files/links.ts', 'src/oauth/grants.ts', 'src/tools/pagination.ts'],
    why: "base64 of the service's own bytes (btoa's output ends with at most two =)",
    patterns: ['/=+$/'],
  },
  {
    files: [
      'src/config.ts',
      'src/files/links.ts',
      'src/files/s3.ts',
      'src/notify/mailer.ts',
      'src/secrets/node-key.ts',
    ],
    why: "the operator's environment (URLs, MAIL_FROM)",
    patterns: [
      String.raw`/\/\/[^@/]*@/`,
      String.raw`/\?.*$/`,
      String.raw`/\/+$/`,
      String.raw`/^file:(.*[/\\])?[^/\\]*$/`,
      String.raw`/^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/`,
    ],
  },
  {
    files: ['src/db/embedded-client.ts'],
    why: "the service's own SQL and database URL",
    patterns: [
      String.raw`/\blimit\s+1\s*;?\s*$/i`,
      String.raw`/\blimit\s+\?\s*;?\s*$/i`,
      String.raw`/^\s*(create|alter|drop)\b/i`,
      String.raw`/^file:(?:\/\/(?=\/))?([^?#%]+)$/`,
    ],
  },
  { files: ['src/errors.ts'], why: "an error's stack frames", patterns: [String.raw`/^\s+at /`] },
  {
    files: ['src/tools/tool-ranker.ts'],
    why: "the tools' own names (verbNoun), to find the verb",
    patterns: ['/[A-Z].*$/'],
  },
  {
    files: ['src/auth/crypto.ts'],
    why: 'base64 keys from the environment (SECRETS_KEY) and bytes the service stored itself',
    patterns: [String.raw`/^[A-Za-z0-9+/_-]*={0,2}$/`],
  },
  {
    files: ['src/auth/passwords.ts'],
    why: 'password hashes the service stored itself',
    patterns: [String.raw`/^(?:[0-9a-f]{2})+$/`],
  },
  {
    files: ['src/notify/mailer-worker.ts'],
    why: "the operator's SMTP server's replies, each at most MAX_REPLY_BYTES",
    patterns: [String.raw`/^(\d{3})([ -]?)(.*)$/`, String.raw`/\s+/`],
  },
  {
    files: ['src/files/s3.ts'],
    why: "the S3 store's own Content-Range",
    patterns: [String.raw`/\/(\d+)$/`],
  },
  {
    files: ['src/oauth/addresses.ts'],
    why: 'an IP address as the URL parser or DNS gives it (45 characters at most)',
    patterns: [String.raw`/(\d+\.\d+\.\d+\.\d+)$/`],
  },
  {
    files: ['src/surfaces/schemas.ts', 'src/web/labels.ts', 'src/tools/imports/export-columns.ts'],
    why: "the tools' own descriptions, labels and codes",
    patterns: ['/[^a-z0-9]+/', String.raw`/[_\s]+/`, '/^[A-Z][A-Z_]+$/'],
  },
];

/** Every regular expression literal under src/ whose body repeats without bound (`*`, `+`, `{n,}`), by file. */
function unboundedLiterals(): { file: string; pattern: string }[] {
  const found: { file: string; pattern: string }[] = [];
  for (const file of sourceFiles('src')) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const pattern = node.getText(source);
        const body = pattern
          .slice(1, pattern.lastIndexOf('/'))
          .replace(/\\./g, '')
          .replace(/\[[^\]]*\]/g, 'C');
        if (/[*+]|\{\d+,\}/.test(body)) found.push({ file, pattern });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('patterns on user input', () => {
  it.each(LITERALS.map((entry) => [entry.pattern, entry] as const))(
    'runs %s in time linear in its input',
    (_pattern, entry) => {
      expectWithinBound(`${entry.pattern} (${entry.input})`, entry.limit, runLiteral(entry), entry.worst);
    },
  );

  it.each(CHECKS.map((entry) => [entry.name, entry] as const))(
    'runs %s in time linear in its input',
    (_name, entry) => {
      expectWithinBound(entry.name, entry.limit, entry.check, entry.worst);
    },
  );

  it('times or excuses every literal of src/ that repeats without bound, and lists none that is gone', () => {
    const literals = unboundedLiterals();
    const timed = new Set(LITERALS.map((entry) => entry.pattern));
    const excused = (file: string, pattern: string) =>
      NOT_USER_INPUT.some((group) => group.files.includes(file) && group.patterns.includes(pattern));
    const unreviewed = literals.filter(({ file, pattern }) => !timed.has(pattern) && !excused(file, pattern));
    expect(unreviewed).toEqual([]);
    const written = new Set(literals.map(({ pattern }) => pattern));
    const gone = [...timed, ...NOT_USER_INPUT.flatMap((group) => group.patterns)].filter(
      (pattern) => !written.has(pattern),
    );
    expect(gone).toEqual([]);
  });

  it('refuses the crafted sign-up email of the issue, and takes a plain one', () => {
    expect(isEmailAddress(stallingEmail(30_000))).toBe(false);
    expect(isEmailAddress('dana.whitfield@example.co.uk')).toBe(true);
    expect(isEmailAddress(`${'a'.repeat(64)}@example.com`)).toBe(true);
    expect(isEmailAddress(`${'a'.repeat(65)}@example.com`)).toBe(false);
    expect(isEmailAddress('a@example..com')).toBe(false);
    expect(isEmailAddress('a b@example.com')).toBe(false);
  });
});
