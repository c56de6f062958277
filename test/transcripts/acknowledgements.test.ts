// Transcript: policy acknowledgements. A published policy asked of everyone, who has not acknowledged, one person
// acknowledging by their link, and version 2 asking everyone again.
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createOrg,
  createTestRuntime,
  createToken,
  runtimesCleanedAfterEach,
} from '../helpers.ts';
import { Transcript, transcribedCalls } from '../transcript.ts';
import { csrfOf, textOf, WebClient } from '../web/web-client.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

describe('policy acknowledgements transcript', () => {
  it('requests, lists who has not acknowledged, acknowledges by link, and asks again on a new version', async () => {
    let clock = new Date('2026-03-02T09:00:00.000Z');
    const runtime = await createTestRuntime({ env: { RATE_LIMIT_PER_MINUTE: '0' }, now: () => clock });
    runtimes.push(runtime);
    const alice = await createActor(runtime, 'alice');
    const org = await createOrg(runtime, alice, 'Acme Health');
    const token = await createToken(runtime, alice);
    const transcript = new Transcript(
      'Policy acknowledgements',
      'Acme Health publishes its acceptable use policy, asks everyone in the people register to acknowledge it, sees who has not, receives one acknowledgement through its link, then publishes version 2, which is asked of everyone again.',
    );
    const call = transcribedCalls(transcript, runtime, token);
    const person = async (full_name: string, email: string) =>
      ((await call.ok('Add a person', 'addPerson', { organization_id: org, full_name, email })).person as Row)
        .id as string;
    const alicePerson = await person('Alice Owner', alice.email);
    const benPerson = await person('Ben Staff', 'ben@example.com');
    const document = (
      await call.ok('Add the policy with its approver', 'addDocument', {
        organization_id: org,
        title: 'Acceptable use policy',
        content: 'Use company devices with care.',
        approver_ids: [alicePerson],
        status: 'IN_REVIEW',
      })
    ).document as Row;
    const documentId = String(document.id);
    await call.ok('Approve version 1', 'approveDocument', { id: documentId });
    const published = await call.ok<{ document: Row }>('Publish version 1', 'updateDocument', {
      id: documentId,
      status: 'PUBLISHED',
    });
    expect(published.document).toMatchObject({ status: 'PUBLISHED', published_version: 1 });

    const asked = await call.ok<{ requested: number; request: Row; links: Row[] }>(
      'Ask everyone to acknowledge the published version',
      'requestAcknowledgements',
      { document_id: documentId, audience: 'ALL', due_date: '2026-03-16' },
      'One link per person; the answer lists them so they can be sent.',
    );
    expect(asked.requested).toBe(2);
    expect(asked.request.version).toBe(1);
    expect(asked.links.map((link) => link.email).sort()).toEqual([alice.email, 'ben@example.com']);

    const pending = (version: number) =>
      call.ok<{ acknowledgements: Row[] }>(
        `Who has not acknowledged version ${version}`,
        'listAcknowledgements',
        { organization_id: org, filter: { document_id: documentId, version, status: 'PENDING' } },
      );
    expect((await pending(1)).acknowledgements.map((row) => row.person_name).sort()).toEqual([
      'Alice Owner',
      'Ben Staff',
    ]);

    // Ben opens his link and presses the button: the public page records the acknowledgement (method LINK).
    const benLink = String(asked.links.find((link) => link.person_id === benPerson)?.link_path);
    const web = new WebClient(runtime);
    const page = await web.get(benLink);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Acceptable use policy, version 1');
    transcript.page('Ben opens his link (GET, no account needed)', textOf(page.html), 400);
    clock = new Date('2026-03-03T10:00:00.000Z');
    const done = await web.post(benLink, { _csrf: csrfOf(page.html) });
    expect(done.status).toBe(200);
    expect(done.html).toContain('You acknowledged Acceptable use policy, version 1, on 2026-03-03.');
    transcript.page('Ben presses “I acknowledge” (POST to the same link)', textOf(done.html), 400);

    const acknowledged = await call.ok<{ acknowledgements: Row[] }>(
      'Ben’s acknowledgement as recorded',
      'listAcknowledgements',
      { organization_id: org, filter: { document_id: documentId, person_id: benPerson } },
    );
    expect(acknowledged.acknowledgements).toHaveLength(1);
    expect(acknowledged.acknowledgements[0]).toMatchObject({
      status: 'ACKNOWLEDGED',
      method: 'LINK',
      version: 1,
      acknowledged_at: '2026-03-03T10:00:00.000Z',
    });
    expect((await pending(1)).acknowledgements.map((row) => row.person_name)).toEqual(['Alice Owner']);

    // Version 2: a content change, approved and published; acknowledgements of version 1 do not count for it.
    clock = new Date('2026-04-01T09:00:00.000Z');
    const edited = await call.ok<{ document: Row }>('Edit the policy: version 2 starts', 'updateDocument', {
      id: documentId,
      content: 'Use company devices with care. Report a lost device within one hour.',
    });
    expect(edited.document).toMatchObject({ status: 'DRAFT', version: 2, published_version: 1 });
    await call.ok('Send version 2 for review', 'updateDocument', { id: documentId, status: 'IN_REVIEW' });
    await call.ok('Approve version 2', 'approveDocument', { id: documentId });
    const republished = await call.ok<{ document: Row }>('Publish version 2', 'updateDocument', {
      id: documentId,
      status: 'PUBLISHED',
    });
    expect(republished.document).toMatchObject({ version: 2, published_version: 2 });
    const again = await call.ok<{ requested: number; request: Row }>(
      'Ask everyone again, for version 2',
      'requestAcknowledgements',
      { document_id: documentId, audience: 'ALL', due_date: '2026-04-15' },
      'Ben acknowledged version 1 only: he is asked again.',
    );
    expect(again.requested).toBe(2);
    expect(again.request.version).toBe(2);
    expect((await pending(2)).acknowledgements.map((row) => row.person_name).sort()).toEqual([
      'Alice Owner',
      'Ben Staff',
    ]);
    transcript.write('test-results/transcripts/policy-acknowledgements.md');
  });
});
