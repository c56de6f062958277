// The public trust page: off by default, only chosen records (an isolation walk over two organizations' pages and
// every link on them), requests for documents (cross-site and bad fields refused, rate limited), an owner's approval
// issuing a link for that one document (tampered 404, expired 410, another page's 404), its own hostname.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifications, trustAccessRequests, webhookMessages } from '../../src/db/schema.ts';
import { notificationPath } from '../../src/notify/engine.ts';
import { REGISTER_SPECS } from '../../src/tools/index.ts';
import { createEndpoint } from '../../src/webhooks/endpoints.ts';
import {
  ACTOR_PASSWORD,
  type Actor,
  addMember,
  callDirect,
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  errorOf,
  ok,
  type TestRuntime,
} from '../helpers.ts';
import { askForTrustDocument } from '../trust-visitor.ts';
import { csrfOf, WebClient } from '../web/web-client.ts';

type Row = Record<string, unknown>;

let runtime: TestRuntime;
let clock = new Date('2026-05-04T09:00:00.000Z');

/** One organization's registers: what it chose for its page and what it did not. */
interface Side {
  owner: Actor;
  token: string;
  org: string;
  slug: string;
  chosen: string[];
  unchosen: string[];
  publicDocument: string;
  requestDocument: string;
  unchosenDocument: string;
  framework: string;
}

const sides: Record<'a' | 'b', Side> = {} as Record<'a' | 'b', Side>;

const idOf = (result: Row, key: string) => String((result[key] as Row).id);

async function publishedDocument(
  token: string,
  org: string,
  approver: string,
  title: string,
  content: string,
  file: { content_base64: string; file_name: string } | Record<string, never> = {},
) {
  const added = await ok(runtime, token, 'addDocument', {
    organization_id: org,
    title,
    content,
    approver_ids: [approver],
    ...file,
  });
  const id = idOf(added, 'document');
  await ok(runtime, token, 'updateDocument', { id, status: 'IN_REVIEW' });
  await ok(runtime, token, 'approveDocument', { id });
  await ok(runtime, token, 'updateDocument', { id, status: 'PUBLISHED' });
  return id;
}

/** An organization with a chosen and an unchosen record of each kind; every name carries the side's letter. */
async function makeSide(letter: 'a' | 'b'): Promise<Side> {
  const up = letter.toUpperCase();
  const owner = await createActor(runtime, `owner-${letter}`);
  const org = await createOrg(runtime, owner, `Org ${up}`);
  const token = await createToken(runtime, owner);
  const person = await ok(runtime, token, 'addPerson', {
    organization_id: org,
    full_name: `Owner ${up}`,
    email: owner.email,
    kind: 'EMPLOYEE',
  });
  const approver = idOf(person, 'person');
  const framework = idOf(
    await ok(runtime, token, 'addFramework', { organization_id: org, name: `ChosenFramework${up}` }),
    'framework',
  );
  await ok(runtime, token, 'addFramework', { organization_id: org, name: `HiddenFramework${up}` });
  const audit = idOf(
    await ok(runtime, token, 'addAudit', {
      organization_id: org,
      framework_id: framework,
      name: `ChosenAudit${up}`,
      auditor: `Auditor${up}`,
      valid_from: '2026-01-01',
      valid_until: '2027-01-01',
    }),
    'audit',
  );
  await ok(runtime, token, 'updateAudit', { id: audit, state: 'IN_PROGRESS' });
  await ok(runtime, token, 'updateAudit', { id: audit, state: 'COMPLETED' });
  await ok(runtime, token, 'addAudit', {
    organization_id: org,
    framework_id: framework,
    name: `HiddenAudit${up}`,
  });
  const publicDocument = await publishedDocument(
    token,
    org,
    approver,
    `PublicPolicy${up}`,
    `PublicText${up}`,
  );
  const requestDocument = await publishedDocument(
    token,
    org,
    approver,
    `RequestReport${up}`,
    `SecretText${up}`,
  );
  const unchosenDocument = await publishedDocument(
    token,
    org,
    approver,
    `HiddenPolicy${up}`,
    `HiddenText${up}`,
  );
  // Chosen but never published: not shown either.
  const draft = idOf(
    await ok(runtime, token, 'addDocument', {
      organization_id: org,
      title: `DraftPolicy${up}`,
      content: `DraftText${up}`,
    }),
    'document',
  );
  await ok(runtime, token, 'addVendor', { organization_id: org, name: `SubProc${up}`, sub_processor: true });
  await ok(runtime, token, 'addVendor', { organization_id: org, name: `PlainVendor${up}` });
  const slug = `acme-${letter}`;
  for (const [record_id, visibility] of [
    [framework, 'PUBLIC'],
    [audit, 'PUBLIC'],
    [publicDocument, 'PUBLIC'],
    [requestDocument, 'ON_REQUEST'],
    [draft, 'PUBLIC'],
  ])
    await ok(runtime, token, 'setTrustPageItem', { organization_id: org, record_id, visibility });
  return {
    owner,
    token,
    org,
    slug,
    chosen: [
      `ChosenFramework${up}`,
      `ChosenAudit${up}`,
      `Auditor${up}`,
      `PublicPolicy${up}`,
      `RequestReport${up}`,
      `SubProc${up}`,
    ],
    unchosen: [
      `HiddenFramework${up}`,
      `HiddenAudit${up}`,
      `HiddenPolicy${up}`,
      `HiddenText${up}`,
      `DraftPolicy${up}`,
      `DraftText${up}`,
      `PlainVendor${up}`,
      `Org ${up}`,
      `Owner ${up}`,
      owner.email,
    ],
    publicDocument,
    requestDocument,
    unchosenDocument,
    framework,
  };
}

/** Asks for the side's on-request document as a visitor, approves it as the owner: the download path. */
async function approvedLink(side: Side, email = 'vic@buyer.example'): Promise<string> {
  const request = await askForTrustDocument(runtime, side, side.requestDocument, { email });
  const decided = await ok(runtime, side.token, 'decideTrustAccessRequest', {
    id: request,
    decision: 'approve',
  });
  expect((decided.trust_access_request as Row).status).toBe('APPROVED');
  return String(decided.link_path);
}

beforeAll(async () => {
  runtime = await createTestRuntime({
    env: {
      RATE_LIMIT_PER_MINUTE: '0',
      TRUST_PAGE_HOSTS: 'trust.acme-a.example=acme-a',
      CLIENT_ADDRESS_HEADER: 'x-real-ip',
    },
    now: () => clock,
  });
  sides.a = await makeSide('a');
  sides.b = await makeSide('b');
});

afterAll(async () => {
  await runtime?.cleanup();
});

describe('the trust page settings', () => {
  it('is off by default: no slug, nothing public, and the path is not found', async () => {
    const got = await ok(runtime, sides.a.token, 'getTrustPage', { organization_id: sides.a.org });
    expect(got.trust_page).toMatchObject({
      enabled: false,
      slug: null,
      path: null,
      show_sub_processors: false,
    });
    expect(((got.trust_page as Row).items as Row[]).map((item) => item.name).sort()).toEqual([
      'ChosenAuditA',
      'ChosenFrameworkA',
      'DraftPolicyA',
      'PublicPolicyA',
      'RequestReportA',
    ]);
    await ok(runtime, sides.a.token, 'updateTrustPage', { organization_id: sides.a.org, slug: 'acme-a' });
    const page = await new WebClient(runtime).get('/trust/acme-a');
    expect(page.status).toBe(404);
    expect(page.html).not.toContain('ChosenFrameworkA');
  });

  it('refuses a slug that is taken, a bad slug, ON_REQUEST for a framework and a record of another organization', async () => {
    await ok(runtime, sides.b.token, 'updateTrustPage', { organization_id: sides.b.org, slug: 'acme-b' });
    const taken = errorOf(
      await callDirect(runtime, sides.b.token, 'updateTrustPage', {
        organization_id: sides.b.org,
        slug: 'acme-a',
      }),
    );
    expect(taken.code).toBe('conflict');
    const bad = errorOf(
      await callDirect(runtime, sides.b.token, 'updateTrustPage', {
        organization_id: sides.b.org,
        slug: 'A b',
      }),
    );
    expect(bad.code).toBe('invalid_arguments');
    const onRequest = errorOf(
      await callDirect(runtime, sides.a.token, 'setTrustPageItem', {
        organization_id: sides.a.org,
        record_id: sides.a.framework,
        visibility: 'ON_REQUEST',
      }),
    );
    expect(onRequest).toMatchObject({ code: 'invalid_arguments' });
    const foreign = errorOf(
      await callDirect(runtime, sides.a.token, 'setTrustPageItem', {
        organization_id: sides.a.org,
        record_id: sides.b.publicDocument,
        visibility: 'PUBLIC',
      }),
    );
    expect(foreign.code).toBe('not_found');
    const unreachable = errorOf(
      await callDirect(runtime, sides.b.token, 'getTrustPage', { organization_id: sides.a.org }),
    );
    expect(unreachable.code).toBe('not_found');
  });

  it('lets only an OWNER or ADMIN change the page; an EDITOR is refused', async () => {
    const editor = await createActor(runtime, 'editor');
    await addMember(runtime, sides.a.org, editor, 'EDITOR');
    const token = await createToken(runtime, editor);
    const refused = errorOf(
      await callDirect(runtime, token, 'updateTrustPage', { organization_id: sides.a.org, enabled: true }),
    );
    expect(refused.code).toBe('forbidden');
    const read = await ok(runtime, token, 'getTrustPage', { organization_id: sides.a.org });
    expect((read.trust_page as Row).enabled).toBe(false);
  });
});

describe('the public page', () => {
  beforeAll(async () => {
    for (const side of [sides.a, sides.b])
      await ok(runtime, side.token, 'updateTrustPage', {
        organization_id: side.org,
        enabled: true,
        title: `Trust ${side.slug}`,
        contact_email: `security@${side.slug}.example`,
        show_sub_processors: true,
      });
  });

  it('shows the chosen records with their validity, the sub-processors and the contact', async () => {
    const page = await new WebClient(runtime).get('/trust/acme-a');
    expect(page.status).toBe(200);
    for (const name of sides.a.chosen) expect(page.html).toContain(name);
    expect(page.html).toContain('Valid 2026-01-01 to 2027-01-01');
    expect(page.html).toContain('security@acme-a.example');
    expect(page.html).toContain(`/trust/acme-a/documents/${sides.a.publicDocument}`);
    expect(page.html).toContain(`/trust/acme-a/request/${sides.a.requestDocument}`);
  });

  it('walks both pages and every link on them: nothing unchosen, nothing of the other organization', async () => {
    const links: Record<'a' | 'b', string> = {
      a: await approvedLink(sides.a, 'walk-a@buyer.example'),
      b: await approvedLink(sides.b, 'walk-b@buyer.example'),
    };
    for (const [letter, other] of [
      ['a', 'b'],
      ['b', 'a'],
    ] as const) {
      const side = sides[letter];
      const web = new WebClient(runtime);
      const start = `/trust/${side.slug}`;
      const seen = new Set<string>([start, links[letter]]);
      const queue = [start, links[letter]];
      const texts: string[] = [];
      while (queue.length > 0) {
        const path = queue.shift() as string;
        const page = await web.get(path);
        expect(page.status, path).toBe(200);
        texts.push(page.html);
        for (const match of page.html.matchAll(/href="([^"]*)"/g)) {
          const href = (match[1] ?? '').replaceAll('&amp;', '&');
          if (href.startsWith(start) && !seen.has(href)) {
            seen.add(href);
            queue.push(href);
          }
        }
      }
      // The page, the public document, the request form and the download.
      expect(seen.size).toBe(4);
      const all = texts.join('\n');
      expect(all).toContain(`PublicText${letter.toUpperCase()}`);
      expect(all).toContain(`SecretText${letter.toUpperCase()}`);
      for (const name of side.unchosen) expect(all, name).not.toContain(name);
      for (const name of [...sides[other].chosen, ...sides[other].unchosen])
        expect(all, name).not.toContain(name);
      for (const id of [sides[other].publicDocument, sides[other].requestDocument, side.unchosenDocument])
        expect(all).not.toContain(id);
    }
  });

  it('answers 404 for an unchosen document, one of another page, or a public one asked for on request', async () => {
    const web = new WebClient(runtime);
    for (const path of [
      `/trust/acme-a/documents/${sides.a.unchosenDocument}`,
      `/trust/acme-a/documents/${sides.b.publicDocument}`,
      `/trust/acme-a/documents/${sides.a.requestDocument}`,
      `/trust/acme-a/request/${sides.a.publicDocument}`,
      `/trust/acme-a/request/${sides.b.requestDocument}`,
      '/trust/nobody-here',
    ]) {
      const page = await web.get(path);
      expect(page.status, path).toBe(404);
      expect(page.html).not.toContain('Text');
    }
  });

  it('refuses a cross-site request and a form without the terms, keeping what was typed', async () => {
    const web = new WebClient(runtime);
    const path = `/trust/acme-a/request/${sides.a.requestDocument}`;
    const form = await web.get(path);
    const fields = { _csrf: csrfOf(form.html), name: 'Eve', email: 'eve@evil.example', company: 'Evil' };
    const crossSite = await web.post(
      path,
      { ...fields, accept_terms: 'yes' },
      { origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    const noToken = await web.post(path, { ...fields, _csrf: 'x'.repeat(43), accept_terms: 'yes' });
    expect(noToken.status).toBe(403);
    const noTerms = await web.post(path, { ...fields, email: 'not an address' });
    expect(noTerms.status).toBe(400);
    expect(noTerms.html).toContain('Accept the terms');
    expect(noTerms.html).toContain('value="Evil"');
    const listed = await ok(runtime, sides.a.token, 'listTrustAccessRequests', {
      organization_id: sides.a.org,
    });
    expect((listed.trust_access_requests as Row[]).map((row) => row.email)).not.toContain('eve@evil.example');
  });

  it('gives the approved link that document only; tampered 404, on another page 404, expired 410', async () => {
    const link = await approvedLink(sides.a, 'dl@buyer.example');
    expect(link).toMatch(/^\/trust\/acme-a\/download\/[A-Za-z0-9_-]{43}$/);
    const web = new WebClient(runtime);
    const got = await runtime.app.request(`http://127.0.0.1:8787${link}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-disposition')).toBe('attachment; filename="RequestReportA v1.md"');
    expect(await got.text()).toBe('SecretTextA');
    const secret = link.slice(-43);
    const tampered = `${link.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    expect((await web.get(tampered)).status).toBe(404);
    expect((await web.get(`/trust/acme-b/download/${secret}`)).status).toBe(404);
    expect((await web.get('/trust/acme-a/download/short')).status).toBe(404);
    // Taken off the page: the link stops giving it.
    await ok(runtime, sides.a.token, 'setTrustPageItem', {
      organization_id: sides.a.org,
      record_id: sides.a.requestDocument,
      visibility: 'HIDDEN',
    });
    expect((await web.get(link)).status).toBe(404);
    await ok(runtime, sides.a.token, 'setTrustPageItem', {
      organization_id: sides.a.org,
      record_id: sides.a.requestDocument,
      visibility: 'ON_REQUEST',
    });
    expect((await web.get(link)).status).toBe(200);
    clock = new Date(clock.getTime() + 8 * 86_400_000);
    const expired = await web.get(link);
    expect(expired.status).toBe(410);
    expect(expired.html).not.toContain('SecretTextA');
  });

  it('decides a request once: a second decision is a conflict, a rejection gives no link', async () => {
    const web = new WebClient(runtime);
    const path = `/trust/acme-b/request/${sides.b.requestDocument}`;
    const form = await web.get(path);
    await web.post(path, {
      _csrf: csrfOf(form.html),
      name: 'Rex',
      email: 'rex@buyer.example',
      company: 'Rex Co',
      accept_terms: 'yes',
    });
    const listed = await ok(runtime, sides.b.token, 'listTrustAccessRequests', {
      organization_id: sides.b.org,
      filter: { status: 'pending' },
    });
    const id = (listed.trust_access_requests as Row[]).find((row) => row.email === 'rex@buyer.example')?.id;
    const foreign = errorOf(
      await callDirect(runtime, sides.a.token, 'decideTrustAccessRequest', { id, decision: 'APPROVE' }),
    );
    expect(foreign.code).toBe('not_found');
    const rejected = await ok(runtime, sides.b.token, 'decideTrustAccessRequest', { id, decision: 'REJECT' });
    expect(rejected).toMatchObject({ link_path: null, trust_access_request: { status: 'REJECTED' } });
    const again = errorOf(
      await callDirect(runtime, sides.b.token, 'decideTrustAccessRequest', { id, decision: 'APPROVE' }),
    );
    expect(again.code).toBe('conflict');
  });
});

describe('a download of a document with an attached file', () => {
  it('sends the file as an attachment with its type within the grant; tampered 404, expired 410', async () => {
    const { db } = runtime.database;
    const people = await ok(runtime, sides.a.token, 'listPeople', { organization_id: sides.a.org });
    const approver = String((people.people as Row[]).find((person) => person.full_name === 'Owner A')?.id);
    const pdf = '%PDF-1.7\n%trust report A\n';
    const document = await publishedDocument(
      sides.a.token,
      sides.a.org,
      approver,
      'FileReportA',
      'FileTextA',
      {
        content_base64: Buffer.from(pdf).toString('base64'),
        file_name: 'SOC 2 report é.pdf',
      },
    );
    await ok(runtime, sides.a.token, 'setTrustPageItem', {
      organization_id: sides.a.org,
      record_id: document,
      visibility: 'ON_REQUEST',
    });
    const request = await askForTrustDocument(runtime, sides.a, document, { email: 'file@buyer.example' });
    const decided = await ok(runtime, sides.a.token, 'decideTrustAccessRequest', {
      id: request,
      decision: 'APPROVE',
    });
    const link = String(decided.link_path);
    const got = await runtime.app.request(`http://127.0.0.1:8787${link}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/pdf');
    expect(got.headers.get('content-disposition')).toBe(
      `attachment; filename="SOC 2 report _.pdf"; filename*=UTF-8''SOC%202%20report%20%C3%A9.pdf`,
    );
    expect(got.headers.get('cache-control')).toBe('no-store');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await got.text()).toBe(pdf);
    // The other document's link still gives its text, not this file.
    const textLink = await approvedLink(sides.a, 'text-too@buyer.example');
    const text = await runtime.app.request(`http://127.0.0.1:8787${textLink}`);
    expect([text.headers.get('content-type'), await text.text()]).toEqual([
      'text/markdown; charset=utf-8',
      'SecretTextA',
    ]);
    const web = new WebClient(runtime);
    const secret = link.slice(-43);
    const tampered = `${link.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const refused = await web.get(tampered);
    expect(refused.status).toBe(404);
    expect(refused.html).not.toContain('trust report A');
    expect((await web.get(`/trust/acme-b/download/${secret}`)).status).toBe(404);
    const [row] = await db.select().from(trustAccessRequests).where(eq(trustAccessRequests.id, request));
    const expiry = new Date(String(row?.link_expires_at));
    const saved = clock;
    clock = new Date(expiry.getTime() + 1000);
    try {
      const expired = await runtime.app.request(`http://127.0.0.1:8787${link}`);
      expect(expired.status).toBe(410);
      expect(expired.headers.get('content-type')).toContain('text/html');
      expect(await expired.text()).not.toContain('trust report A');
    } finally {
      clock = saved;
    }
  });
});

describe('the trust page on its own hostname', () => {
  it('serves the page and its links at the root of the mapped host, and nothing else there', async () => {
    const host = 'http://trust.acme-a.example';
    const page = await runtime.app.request(`${host}/`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('ChosenFrameworkA');
    expect(html).toContain(`href="/documents/${sides.a.publicDocument}"`);
    const document = await runtime.app.request(`${host}/documents/${sides.a.publicDocument}`);
    expect(await document.text()).toContain('PublicTextA');
    for (const path of [
      '/login',
      '/trust/acme-b',
      `/documents/${sides.b.publicDocument}`,
      '/api/mcp/v1/health',
    ]) {
      const other = await runtime.app.request(`${host}${path}`);
      expect(other.status, path).toBe(404);
      expect(await other.text()).not.toContain('ChosenFrameworkB');
    }
    // Another host still serves the service.
    expect((await runtime.app.request('http://127.0.0.1:8787/login')).status).toBe(200);
  });

  it('takes a request on the mapped host with its own form token', async () => {
    const host = 'http://trust.acme-a.example';
    const web = new WebClient(runtime, host);
    const form = await web.get(`/request/${sides.a.requestDocument}`);
    expect(form.status).toBe(200);
    expect(form.html).toContain(`action="/request/${sides.a.requestDocument}"`);
    const sent = await web.post(
      `/request/${sides.a.requestDocument}`,
      {
        _csrf: csrfOf(form.html),
        name: 'Hana',
        email: 'hana@buyer.example',
        company: 'Hana AG',
        accept_terms: 'yes',
      },
      { origin: host },
    );
    expect(sent.status).toBe(200);
    const crossSite = await web.post(
      `/request/${sides.a.requestDocument}`,
      {
        _csrf: csrfOf(form.html),
        name: 'Hana',
        email: 'hana@buyer.example',
        company: 'Hana AG',
        accept_terms: 'yes',
      },
      { origin: 'http://127.0.0.1:8787' },
    );
    expect(crossSite.status).toBe(403);
  });
});

describe('the trust page in the web', () => {
  it("lets the owner change the page and decide a request there; another organization's owner sees nothing", async () => {
    const link = await approvedLink(sides.b, 'first-b@buyer.example');
    expect(link).toContain('/trust/acme-b/download/');
    const visitorWeb = new WebClient(runtime);
    const form = await visitorWeb.get(`/trust/acme-a/request/${sides.a.requestDocument}`);
    await visitorWeb.post(`/trust/acme-a/request/${sides.a.requestDocument}`, {
      _csrf: csrfOf(form.html),
      name: 'Walt Web',
      email: 'walt@buyer.example',
      company: 'Walt Inc',
      accept_terms: 'yes',
    });
    const listed = await ok(runtime, sides.a.token, 'listTrustAccessRequests', {
      organization_id: sides.a.org,
      filter: { status: 'PENDING' },
    });
    const id = String(
      (listed.trust_access_requests as Row[]).find((row) => row.email === 'walt@buyer.example')?.id,
    );

    const owner = new WebClient(runtime);
    await owner.signIn(sides.a.owner.email, ACTOR_PASSWORD);
    const settings = await owner.get(`/orgs/${sides.a.org}/trust`);
    expect(settings.status).toBe(200);
    expect(settings.html).toContain('walt@buyer.example');
    expect(settings.html).toContain(`name="item_${sides.a.unchosenDocument}"`);
    const hidden = await owner.post(`/orgs/${sides.a.org}/trust/items`, {
      _csrf: csrfOf(settings.html),
      [`item_${sides.a.unchosenDocument}`]: 'PUBLIC',
    });
    expect(hidden.status).toBe(303);
    const page = await new WebClient(runtime).get('/trust/acme-a');
    expect(page.html).toContain('HiddenPolicyA');
    const approved = await owner.post(`/orgs/${sides.a.org}/trust/requests/${id}`, {
      _csrf: csrfOf(settings.html),
      decision: 'APPROVE',
    });
    expect(approved.status).toBe(200);
    const shown = /<code class="secret">([^<]+)<\/code>/.exec(approved.html)?.[1] ?? '';
    expect(shown).toMatch(/^\/trust\/acme-a\/download\/[A-Za-z0-9_-]{43}$/);
    expect((await runtime.app.request(`http://127.0.0.1:8787${shown}`)).status).toBe(200);

    const other = new WebClient(runtime);
    await other.signIn(sides.b.owner.email, ACTOR_PASSWORD);
    const foreign = await other.get(`/orgs/${sides.a.org}/trust`);
    expect(foreign.status).toBe(404);
    expect(foreign.html).not.toContain('walt@buyer.example');
    const own = await other.get(`/orgs/${sides.b.org}/trust`);
    // A request of another organization decided from this organization's page: not found, nothing decided.
    const listedB = await ok(runtime, sides.b.token, 'listTrustAccessRequests', {
      organization_id: sides.b.org,
    });
    expect((listedB.trust_access_requests as Row[]).map((row) => row.email)).not.toContain(
      'walt@buyer.example',
    );
    const crossed = await other.post(`/orgs/${sides.b.org}/trust/requests/${id}`, {
      _csrf: csrfOf(own.html),
      decision: 'REJECT',
    });
    expect(crossed.status).toBe(404);
    await ok(runtime, sides.a.token, 'setTrustPageItem', {
      organization_id: sides.a.org,
      record_id: sides.a.unchosenDocument,
      visibility: 'HIDDEN',
    });
  });
});

describe('the notice of a new request', () => {
  it("tells the organization's owners and admins (not editors, not another organization) and its webhook", async () => {
    const admin = await createActor(runtime, 'admin-b');
    const editor = await createActor(runtime, 'editor-b');
    await addMember(runtime, sides.b.org, admin, 'ADMIN');
    await addMember(runtime, sides.b.org, editor, 'EDITOR');
    const { db } = runtime.database;
    const hook = await createEndpoint(
      db,
      clock,
      sides.b.org,
      { url: 'http://127.0.0.1:9/hook', description: null, events: ['trust_request.*'] },
      { kinds: REGISTER_SPECS.map((spec) => spec.kind), allowLocal: true, secrets: runtime.secrets },
    );
    const id = await askForTrustDocument(runtime, sides.b, sides.b.requestDocument, {
      name: 'Nora Notice',
      email: 'nora@buyer.example',
      company: 'Notice Ltd',
    });
    const notes = await db.select().from(notifications).where(eq(notifications.record_id, id));
    // No SMTP settings here: in the app only.
    expect(
      notes
        .map((note) => [note.user_id, note.channel, note.kind, note.organization_id, note.status, note.title])
        .sort(),
    ).toEqual(
      [sides.b.owner.userId, admin.userId]
        .map((user) => [
          user,
          'in_app',
          'trust_request',
          sides.b.org,
          'delivered',
          'Trust page request for RequestReportB',
        ])
        .sort(),
    );
    expect(notes[0]?.body).toBe(
      'Nora Notice (nora@buyer.example) of Notice Ltd asks for "RequestReportB" on the trust page. Approve or reject it on the trust page\'s settings.',
    );
    expect(notificationPath(notes[0] as (typeof notes)[number])).toBe(
      `/orgs/${sides.b.org}/trust#trust-requests`,
    );
    const messages = await db
      .select()
      .from(webhookMessages)
      .where(eq(webhookMessages.endpoint_id, hook.endpoint.id));
    expect(messages.map((message) => message.event_type)).toEqual(['trust_request.created']);
    expect(JSON.parse(messages[0]?.payload ?? '{}').data).toEqual({
      request_id: id,
      document_id: sides.b.requestDocument,
      document_title: 'RequestReportB',
      name: 'Nora Notice',
      email: 'nora@buyer.example',
      company: 'Notice Ltd',
    });

    // The admin's inbox opens the page where the request is decided.
    const adminWeb = new WebClient(runtime);
    await adminWeb.signIn(admin.email, ACTOR_PASSWORD);
    const inbox = await adminWeb.get('/notifications');
    expect(inbox.html).toContain('Trust page request for RequestReportB');
    expect(inbox.html).toContain(`href="/orgs/${sides.b.org}/trust#trust-requests"`);
    // A refused form (no terms) tells no one.
    const web = new WebClient(runtime);
    const path = `/trust/acme-b/request/${sides.b.requestDocument}`;
    const form = await web.get(path);
    const refused = await web.post(path, {
      _csrf: csrfOf(form.html),
      name: 'Nora Notice',
      email: 'nora2@buyer.example',
      company: 'Notice Ltd',
    });
    expect(refused.status).toBe(400);
    const after = await db.select().from(notifications).where(eq(notifications.kind, 'trust_request'));
    expect(after.filter((note) => note.body.includes('nora2@')).length).toBe(0);
  });
});

describe('the rate limit of the public trust pages', () => {
  it('answers 429 with Retry-After once a network used its attempts, for downloads and the request form', async () => {
    const web = new WebClient(runtime);
    web.headers['x-real-ip'] = '203.0.113.77';
    let status = 0;
    let attempts = 0;
    for (; attempts < 130 && status !== 429; attempts++)
      status = (await web.get(`/trust/acme-a/download/${'x'.repeat(43)}`)).status;
    expect(status).toBe(429);
    expect(attempts).toBe(121);
    const form = await web.get(`/trust/acme-a/request/${sides.a.requestDocument}`);
    const limited = await web.post(`/trust/acme-a/request/${sides.a.requestDocument}`, {
      _csrf: csrfOf(form.html),
      name: 'Late',
      email: 'late@buyer.example',
      company: 'Late Ltd',
      accept_terms: 'yes',
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
