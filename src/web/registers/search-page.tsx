// Search across every register of an organization: each list tool's text filter, the first matches of each.
import type { Membership } from '../context.ts';
import { Layout, type Viewer } from '../layout.tsx';
import { displayName, type RegisterPage } from '../register-pages.ts';

type Row = Record<string, unknown>;

/** How many matches of each register the search page shows (the register's own page lists them all). */
export const SEARCH_MATCHES_PER_REGISTER = 5;

export interface RegisterMatches {
  page: RegisterPage;
  rows: Row[];
  total: number;
  /** More match than `total` (the list tools count text matches up to a cap). */
  capped: boolean;
}

export function SearchPage(props: {
  viewer: Viewer;
  membership: Membership;
  query: string;
  results: RegisterMatches[];
  error?: string;
}) {
  const base = `/orgs/${props.membership.organizationId}`;
  const found = props.results.filter((result) => result.rows.length > 0);
  return (
    <Layout
      title={`Search · ${props.membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: props.membership.organizationId, page: 'search' }}
    >
      <h1>Search</h1>
      <search>
        <form method="get" action={`${base}/search`} class="card inline-form">
          <label for="search-query">Words to find in every register</label>
          <input id="search-query" type="search" name="q" value={props.query} />
          <button type="submit">Search</button>
        </form>
      </search>
      {props.error && <p class="error-text">{props.error}</p>}
      {props.query && !props.error && found.length === 0 && (
        <p class="empty">Nothing in any register matches “{props.query}”.</p>
      )}
      {found.map((result) => {
        const registerHref = `${base}/${result.page.slug}?query=${encodeURIComponent(props.query)}`;
        return (
          <section aria-labelledby={`found-${result.page.slug}`}>
            <h2 id={`found-${result.page.slug}`}>
              <a href={registerHref}>{result.page.title}</a>{' '}
              <span class="muted small">
                ({result.capped ? `more than ${result.total}` : result.total}{' '}
                {result.total === 1 ? 'match' : 'matches'})
              </span>
            </h2>
            <ul>
              {result.rows.map((row) => (
                <li>
                  <a href={`${base}/${result.page.slug}/${String(row.id)}`} dir="auto">
                    {displayName(row)}
                  </a>
                </li>
              ))}
            </ul>
            {result.total > result.rows.length && (
              <p class="small">
                <a href={registerHref}>
                  All {result.capped ? '' : `${result.total} `}matching {result.page.spec.labelPlural}
                </a>
              </p>
            )}
          </section>
        );
      })}
    </Layout>
  );
}
