// An access review's decide page: a reviewer sees only their open entries of the campaign and decides each with a
// comment through updateAccessReviewEntry; the campaign's progress moves; another reviewer's entry, another
// campaign's entry, a post without a decision and a stale form are refused with nothing written.
import { describe, expect, it } from 'vitest';
import { ok, runtimesCleanedAfterEach } from '../helpers.ts';
import { csrfOf, inviteAndAccept, signedUpRuntime, textOf, WebClient } from './web-client.ts';

type Row = Record<string, unknown>;

const runtimes = runtimesCleanedAfterEach();

describe('access review decide page', () => {
  it('lets a reviewer decide their own open entries with a comment, and nothing else', async () => {
    const { runtime, client: ada, token, organizationId } = await signedUpRuntime(runtimes);
    const bob = new WebClient(runtime);
    await bob.signUp('bob@example.com');
    const joined = await inviteAndAccept(ada, bob, organizationId, 'bob@example.com', 'EDITOR');
    expect(joined.status).toBe(303);
    const add = async (tool: string, key: string, args: Row) =>
      (await ok(runtime, token, tool, { organization_id: organizationId, ...args }))[key] as Row;
    const adaPerson = await add('addPerson', 'person', {
      full_name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    const bobPerson = await add('addPerson', 'person', {
      full_name: 'Bob Reviewer',
      email: 'bob@example.com',
    });
    const campaign = await add('addAccessReview', 'access_review', {
      name: 'Q4 production access',
      status: 'IN_PROGRESS',
      due_on: '2030-01-31',
    });
    const other = await add('addAccessReview', 'access_review', {
      name: 'Other campaign',
      status: 'IN_PROGRESS',
    });
    const entry = (account: string, system: string, reviewer: Row, review = campaign) =>
      add('addAccessReviewEntry', 'access_review_entry', {
        access_review_id: review.id,
        account,
        system,
        access_level: 'admin',
        reviewer_id: reviewer.id,
      });
    const aws = await entry('jdoe@corp.example', 'AWS production', bobPerson);
    const github = await entry('<jdoe>', 'GitHub', bobPerson);
    const adas = await entry('ops@corp.example', 'Stripe', adaPerson);
    const elsewhere = await entry('x@corp.example', 'Slack', bobPerson, other);

    const base = `/orgs/${organizationId}/access-reviews/${campaign.id}`;
    const page = await bob.get(`${base}/decide`);
    expect(page.status).toBe(200);
    const text = textOf(page.html);
    expect(text).toContain('0 of 3 entries decided (0%)');
    expect(text).toContain('2 entries to decide');
    expect(page.html).toContain(`value="${aws.id}"`);
    expect(page.html).toContain(`value="${github.id}"`);
    // Ada's entry and the other campaign's are not Bob's to decide here.
    expect(page.html).not.toContain(adas.id as string);
    expect(page.html).not.toContain(elsewhere.id as string);
    // The account is text, escaped.
    expect(page.html).toContain('&lt;jdoe&gt; on GitHub');
    expect(page.html).not.toContain('<jdoe>');

    const csrf = csrfOf(page.html);
    const decided = await bob.post(`${base}/decide`, {
      _csrf: csrf,
      entry_id: aws.id as string,
      expected_updated_at: aws.updated_at as string,
      decision: 'REVOKE',
      decision_comment: 'Left the platform team in October.',
    });
    expect(decided.status).toBe(303);
    const after = await bob.follow(decided);
    expect(textOf(after.html)).toContain('Recorded: Revoke for jdoe@corp.example on AWS production.');
    expect(textOf(after.html)).toContain('1 of 3 entries decided (33%)');
    expect(textOf(after.html)).toContain('1 entry to decide');
    expect(after.html).not.toContain(`value="${aws.id}"`);
    const read = (id: unknown) =>
      ok(runtime, token, 'getAccessReviewEntry', { id }).then((result) => result.access_review_entry as Row);
    const stored = await read(aws.id);
    expect(stored.decision).toBe('REVOKE');
    expect(stored.decision_comment).toBe('Left the platform team in October.');
    expect(stored.decided_by_id).toBe(bobPerson.id);

    // The same form again (stale): refused, the decision stays the first one.
    const stale = await bob.post(`${base}/decide`, {
      _csrf: csrf,
      entry_id: aws.id as string,
      expected_updated_at: aws.updated_at as string,
      decision: 'KEEP',
      decision_comment: 'Second thoughts',
    });
    expect(stale.status).toBe(409);
    expect(textOf(stale.html)).toContain('This entry changed since the page was loaded');
    expect((await read(aws.id)).decision).toBe('REVOKE');

    // No decision: refused on the entry, the comment typed kept, nothing written.
    const undecided = await bob.post(`${base}/decide`, {
      _csrf: csrf,
      entry_id: github.id as string,
      decision_comment: 'Still needed for releases',
    });
    expect(undecided.status).toBe(400);
    expect(textOf(undecided.html)).toContain('Choose a decision: keep, revoke, modify or escalate.');
    expect(undecided.html).toContain('Still needed for releases</textarea>');
    expect((await read(github.id)).decision).toBeNull();

    // Ada's entry, posted by Bob: the tool refuses (not his to decide).
    const notHis = await bob.post(`${base}/decide`, {
      _csrf: csrf,
      entry_id: adas.id as string,
      decision: 'KEEP',
    });
    expect(notHis.status).toBe(403);
    expect(textOf(notHis.html)).toContain("Only the entry's reviewer");
    expect((await read(adas.id)).decision).toBeNull();

    // An entry of another campaign through this campaign's page: not found, not decided.
    const wrongCampaign = await bob.post(`${base}/decide`, {
      _csrf: csrf,
      entry_id: elsewhere.id as string,
      decision: 'KEEP',
    });
    expect(wrongCampaign.status).toBe(404);
    expect((await read(elsewhere.id)).decision).toBeNull();

    // Ada, an OWNER, may show and decide every open entry.
    const all = await ada.get(`${base}/decide?all=1`);
    expect(textOf(all.html)).toContain('2 entries to decide');
    expect(all.html).toContain(`value="${github.id}"`);
    expect(all.html).toContain(`value="${adas.id}"`);
    const escalated = await ada.post(`${base}/decide?all=1`, {
      _csrf: csrfOf(all.html),
      entry_id: github.id as string,
      decision: 'ESCALATE',
      decision_comment: 'Ask the release manager',
    });
    expect(escalated.location).toBe(`${base}/decide?all=1`);
    expect((await read(github.id)).decision).toBe('ESCALATE');

    // The campaign's page shows the progress and links to the decide page.
    const campaignPage = await bob.get(base);
    expect(textOf(campaignPage.html)).toContain('2 of 3 entries decided (66%)');
    expect(campaignPage.html).toContain(`href="${base}/decide"`);
  });

  it('pages through more open entries than one page holds, and a decision keeps its page', async () => {
    const { runtime, client: ada, token, organizationId } = await signedUpRuntime(runtimes);
    const campaign = (
      await ok(runtime, token, 'addAccessReview', {
        organization_id: organizationId,
        name: 'Big campaign',
        status: 'IN_PROGRESS',
      })
    ).access_review as Row;
    // 53 open entries, systems S01..S53 so that the order (by system) is known; imported in one call.
    const systems = Array.from({ length: 53 }, (_, index) => `S${String(index + 1).padStart(2, '0')}`);
    const csv = [
      'access_review_id,account,system,access_level',
      ...systems.map((system) => `${campaign.id},user-${system}@corp.example,${system},read`),
    ].join('\n');
    const imported = await ok(runtime, token, 'importRecords', {
      organization_id: organizationId,
      kind: 'access_review_entry',
      csv,
    });
    expect((imported.counts as Row).created).toBe(53);

    const base = `/orgs/${organizationId}/access-reviews/${campaign.id}/decide`;
    const headingsOf = (html: string) => [...html.matchAll(/ on (S\d\d)<\/h3>/g)].map((match) => match[1]);
    const first = await ada.get(`${base}?all=1`);
    expect(first.status).toBe(200);
    expect(textOf(first.html)).toContain('53 entries to decide (1 to 50 shown)');
    expect(headingsOf(first.html)).toEqual(systems.slice(0, 50));
    expect(textOf(first.html)).toContain('Page 1');
    const nextHref = /<a class="button quiet" href="([^"]+)" rel="next">/.exec(first.html)?.[1];
    expect(nextHref).toMatch(/^\/orgs\/.+\/decide\?all=1&amp;cursor=/);
    const second = await ada.get((nextHref as string).replaceAll('&amp;', '&'));
    expect(second.status).toBe(200);
    expect(textOf(second.html)).toContain('53 entries to decide (51 to 53 shown)');
    expect(headingsOf(second.html)).toEqual(['S51', 'S52', 'S53']);
    expect(textOf(second.html)).toContain('Page 2');
    expect(second.html).not.toContain('rel="next"');
    expect(second.html).toContain(`href="${base}?all=1">First page</a>`);

    // Deciding S52 on the second page comes back to that page, its cursor and `all` kept.
    const entryOf = (html: string, system: string) =>
      new RegExp(
        `on ${system}</h3>[\\s\\S]*?name="entry_id" value="(are_[0-9a-z]+)"[\\s\\S]*?name="expected_updated_at" value="([^"]+)"`,
      ).exec(html);
    const s52 = entryOf(second.html, 'S52');
    expect(s52).not.toBeNull();
    const action = /<form method="post" action="([^"]+\/decide\?[^"]+)"/
      .exec(second.html)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(action).toContain('cursor=');
    const decided = await ada.post(action as string, {
      _csrf: csrfOf(second.html),
      entry_id: s52?.[1] as string,
      expected_updated_at: s52?.[2] as string,
      decision: 'KEEP',
    });
    expect(decided.status).toBe(303);
    expect(decided.location).toBe(
      `/orgs/${organizationId}/access-reviews/${campaign.id}/decide${action?.slice(action.indexOf('?'))}`,
    );
    const after = await ada.follow(decided);
    expect(textOf(after.html)).toContain('52 entries to decide (51 to 52 shown)');
    expect(headingsOf(after.html)).toEqual(['S51', 'S53']);

    // A damaged cursor is an error on the page with the way back, not an empty list.
    const damaged = await ada.get(`${base}?all=1&cursor=not-a-cursor`);
    expect(damaged.status).toBe(200);
    expect(damaged.html).toContain(`href="${base}?all=1">Back to the first page</a>`);
    expect(damaged.html).not.toContain('name="entry_id"');
  });

  it('answers 404 for a campaign of an organization the viewer is not a member of', async () => {
    const { runtime, organizationId, token } = await signedUpRuntime(runtimes);
    const campaign = (
      await ok(runtime, token, 'addAccessReview', {
        organization_id: organizationId,
        name: 'Quarterly review of payroll access',
      })
    ).access_review as Row;
    const eve = new WebClient(runtime);
    await eve.signUp('eve@example.com', 'Eve Corp');
    const page = await eve.get(`/orgs/${organizationId}/access-reviews/${campaign.id}/decide`);
    expect(page.status).toBe(404);
    // A name no random token on the page (the CSRF field's) can hold by chance, as 'Q1' once did.
    expect(page.html).not.toContain('payroll');
    expect(page.html).toContain('<h1>Not found</h1>');
  });
});
