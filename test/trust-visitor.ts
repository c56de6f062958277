// A visitor of a trust page asking for a document offered on request, through the public form, and the request's id
// as the organization lists it.
import { expect } from 'vitest';
import type { Runtime } from '../src/runtime.ts';
import { ok } from './helpers.ts';
import { csrfOf, WebClient } from './web/web-client.ts';

export interface TrustVisitor {
  name?: string;
  email: string;
  company?: string;
}

/** Sends the request form of `documentId` on the page at `/trust/<slug>`; the request's id (`tar_...`). */
export async function askForTrustDocument(
  runtime: Runtime,
  page: { slug: string; org: string; token: string },
  documentId: string,
  visitor: TrustVisitor,
): Promise<string> {
  const web = new WebClient(runtime);
  const path = `/trust/${page.slug}/request/${documentId}`;
  const form = await web.get(path);
  expect(form.status).toBe(200);
  const name = visitor.name ?? 'Vic Visitor';
  const company = visitor.company ?? 'Buyer Ltd';
  const sent = await web.post(path, {
    _csrf: csrfOf(form.html),
    name,
    email: visitor.email,
    company,
    accept_terms: 'yes',
  });
  expect(sent.status).toBe(200);
  const listed = await ok(runtime, page.token, 'listTrustAccessRequests', {
    organization_id: page.org,
    filter: { status: 'PENDING' },
  });
  const found = (listed.trust_access_requests as Record<string, unknown>[]).find(
    (row) => row.email === visitor.email,
  );
  expect(found).toMatchObject({ name, company, status: 'PENDING' });
  return String(found?.id);
}
