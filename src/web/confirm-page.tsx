// The one page that asks before something cannot be taken back (delete a record, revoke a token or a connected
// client, remove a member, leave an organization): a heading that names it, what follows, one danger button that
// posts the form with its CSRF token, and a way back.
import type { Child, PropsWithChildren } from 'hono/jsx';
import { CsrfField, Layout, Notice, type Section, type Viewer } from './layout.tsx';

export interface ConfirmPageProps {
  viewer: Viewer;
  /** The browser tab's title. */
  title: string;
  section: Section;
  /** The question, naming what is at stake ("Revoke “CI token”?"). */
  heading: Child;
  /** Where the page sits (links above the heading), if anywhere. */
  crumbs?: Child;
  /** Why the last attempt was refused, shown above the card. */
  error?: string | undefined;
  /** Where the form posts. */
  action: string;
  /** The danger button's words ("Revoke token"). */
  button: string;
  /** Where "cancel" goes, and its words. */
  cancelHref: string;
  cancelLabel?: string;
}

/** The explanation goes in the children, as paragraphs. */
export function ConfirmPage(props: PropsWithChildren<ConfirmPageProps>) {
  return (
    <Layout title={props.title} viewer={props.viewer} section={props.section}>
      {props.crumbs && <p class="small">{props.crumbs}</p>}
      <h1>{props.heading}</h1>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <div class="card">
        {props.children}
        <form method="post" action={props.action}>
          <CsrfField token={props.viewer.csrfToken} />
          <div class="actions">
            <button type="submit" class="danger">
              {props.button}
            </button>
            <a href={props.cancelHref}>{props.cancelLabel ?? 'Cancel'}</a>
          </div>
        </form>
      </div>
    </Layout>
  );
}
