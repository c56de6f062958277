// The statement of applicability published on the Worker: refused while a row lacks its justification, then
// rendered by the server inside workerd (no browser printing) into a PDF stored in R2, with its rows as text, and
// written as version 1 of a document IN_REVIEW.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { BASE } from '../contract/host.ts';
import { world } from './helpers.ts';

type Row = Record<string, unknown>;

async function call(tool: string, args: Row): Promise<{ status: number; body: Row }> {
  const response = await exports.default.fetch(
    new Request(`${BASE}/api/mcp/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.tokens.alice}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    }),
  );
  return { status: response.status, body: (await response.json()) as Row };
}

describe('published outputs on the Worker', () => {
  it('publishes a statement of applicability as a PDF document version', async () => {
    const org = world.orgIsolation;
    const tag = crypto.randomUUID().slice(0, 8);
    const framework = (await call('addFramework', { organization_id: org, name: `Worker SoA ${tag}` })).body
      .framework as Row;
    const requirement = (
      await call('addRequirement', {
        organization_id: org,
        framework_id: framework.id,
        reference: 'W.1',
        title: 'Worker requirement',
      })
    ).body.requirement as Row;
    const person = (
      await call('addPerson', {
        organization_id: org,
        full_name: `Approver ${tag}`,
        email: `approver-${tag}@example.com`,
      })
    ).body.person as Row;

    const refused = await call('publishStatementOfApplicability', {
      framework_id: framework.id,
      approver_ids: [person.id],
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('1 requirement has no justification');

    await call('updateRequirement', { id: requirement.id, justification: `Contract clause ${tag}` });
    const published = await call('publishStatementOfApplicability', {
      framework_id: framework.id,
      approver_ids: [person.id],
    });
    expect(published.status).toBe(200);
    expect(published.body.document).toMatchObject({
      type: 'STATEMENT_OF_APPLICABILITY',
      status: 'IN_REVIEW',
    });
    expect(published.body.version).toMatchObject({ number: 1, status: 'IN_REVIEW' });
    const response = await exports.default.fetch(
      new Request(new URL(String(published.body.download_url), BASE)),
    );
    expect(response.status).toBe(200);
    const text = new TextDecoder('latin1').decode(new Uint8Array(await response.arrayBuffer()));
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    expect(text.trimEnd().endsWith('%%EOF')).toBe(true);
    // The text is in the page streams as written (selectable), with the row's justification.
    expect(text).toContain(`Contract clause ${tag}`);
    expect(text).toContain('W.1');
  });
});
