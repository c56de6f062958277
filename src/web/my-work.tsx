// The "My work" page: the signed-in person's tasks, reviews due and open items, by due date, as myWork answers them.

import { Hono } from 'hono';
import { ERROR_STATUS } from '../errors.ts';
import { myWorkTool } from '../tools/my-work.ts';
import type { WebDeps, WebEnv } from './context.ts';
import { DataTable } from './data-table.tsx';
import { valueLabel } from './labels.ts';
import { Badge, Layout, Notice, Pager, type Viewer } from './layout.tsx';
import { registerPageByKind } from './register-pages.ts';
import { sendPage } from './render.tsx';
import { webCalls } from './tool-calls.ts';
import { viewerOf } from './viewer.ts';

type Row = Record<string, unknown>;

const REASON_LABELS: Record<string, string> = {
  ASSIGNED: 'Assigned to you',
  REVIEW: 'Review due',
  OWNED: 'You own it',
  ACCEPTANCE: 'Risk acceptance due',
  TEST: 'Control test due',
  DEADLINE: 'Notification deadline',
  ACKNOWLEDGE: 'To acknowledge',
  QUESTIONNAIRE: 'Questionnaire unanswered',
  RENEWAL: 'Contract renewal',
  ASSESSMENT: 'Vendor assessment due',
  CHAIR: 'You chair it',
};

const PAGE_SIZE = 50;

function MyWorkPage(props: {
  viewer: Viewer;
  items: Row[];
  today: string;
  total: number;
  next: string | null;
  first: boolean;
  error?: string;
}) {
  const organizations = new Map(props.viewer.memberships.map((item) => [item.organizationId, item.name]));
  const zone = props.viewer.user.timeZone ?? 'UTC';
  return (
    <Layout title="My work" viewer={props.viewer}>
      <h1>My work</h1>
      <p class="lead">
        Tasks assigned to you, reviews due within 30 days and open items you own (as the person with your
        email in each organization), earliest due first. Today is {props.today} ({zone}).
      </p>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <DataTable
        items={props.items}
        empty="Nothing is waiting for you."
        emptyClass="muted"
        caption={`${props.total} items`}
        columns={[
          {
            header: 'Item',
            cell: (item) => {
              const href = itemHref(item);
              return href ? <a href={href}>{String(item.title)}</a> : String(item.title);
            },
          },
          {
            header: 'Register',
            cell: (item) =>
              registerPageByKind(String(item.kind)) ? valueLabel(String(item.kind)) : String(item.kind),
          },
          { header: 'Why', cell: (item) => REASON_LABELS[String(item.reason)] ?? String(item.reason) },
          {
            header: 'Due',
            cell: (item) => (
              <>
                {item.due_on ? String(item.due_on) : <span class="muted">—</span>}{' '}
                {item.overdue === true && <Badge tone="bad">overdue</Badge>}
                {item.due_soon === true && <Badge tone="warn">due soon</Badge>}
              </>
            ),
          },
          {
            header: 'Status',
            cell: (item) => (item.status ? valueLabel(String(item.status)) : <span class="muted">—</span>),
          },
          {
            header: 'Organization',
            cell: (item) => organizations.get(String(item.organization_id)) ?? String(item.organization_id),
          },
        ]}
      />
      <Pager
        first={props.first ? null : '/my-work'}
        next={props.next ? `/my-work?${new URLSearchParams({ cursor: props.next })}` : null}
      />
    </Layout>
  );
}

export function myWorkRoutes(deps: WebDeps) {
  const app = new Hono<WebEnv>();
  app.get('/my-work', async (c) => {
    const cursor = c.req.query('cursor');
    const result = await webCalls(c, deps).read(myWorkTool, {
      size: PAGE_SIZE,
      ...(cursor ? { cursor } : {}),
    });
    const viewer = viewerOf(c);
    if (!result.ok)
      return sendPage(
        c,
        <MyWorkPage
          viewer={viewer}
          items={[]}
          today=""
          total={0}
          next={null}
          first
          error={result.error.message}
        />,
        ERROR_STATUS[result.error.code],
      );
    const body = result.result as {
      items: Row[];
      today: string;
      total_count: number;
      next_cursor: string | null;
    };
    return sendPage(
      c,
      <MyWorkPage
        viewer={viewer}
        items={body.items}
        today={body.today}
        total={body.total_count}
        next={body.next_cursor}
        first={!cursor}
      />,
    );
  });
  return app;
}

/** The page of a work item's record, when its kind has one. */
function itemHref(item: Record<string, unknown>): string | undefined {
  const page = registerPageByKind(String(item.kind));
  return page ? `/orgs/${String(item.organization_id)}/${page.slug}/${String(item.id)}` : undefined;
}
