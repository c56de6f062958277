// "Add a framework" from a built-in catalogue: the catalogues that ship with the service (listCatalogs), each with
// its edition and counts, adopted with one button through importFrameworkCatalog {catalog}, the assistant's tool.
import { Hono } from 'hono';
import { listCatalogsTool } from '../../tools/catalogs/catalog-tools.ts';
import { importCatalogTool } from '../../tools/catalogs/import-tool.ts';
import { mayWrite, membershipOf, notAllowedPage } from '../access.ts';
import type { Membership, WebDeps, WebEnv } from '../context.ts';
import { DataTable } from '../data-table.tsx';
import { setFlash } from '../flash.ts';
import { CsrfField, Layout, Notice, type Viewer } from '../layout.tsx';
import { errorPage, notFoundPage, sendPage } from '../render.tsx';
import { webCalls } from '../tool-calls.ts';
import { viewerOf } from '../viewer.ts';

interface CatalogRow {
  key: string;
  name: string;
  version: string;
  edition: string;
  publisher: string;
  description: string;
  sections: number;
  requirements: number;
  crosswalks: { catalog: string; mappings: number }[];
  adopted: { framework_id: string; name: string } | null;
}

export const CATALOGS_PATH = '/orgs/:org/frameworks/catalogues';

function CatalogsPage(props: { viewer: Viewer; membership: Membership; catalogs: CatalogRow[] }) {
  const { membership } = props;
  const base = `/orgs/${membership.organizationId}`;
  const writable = mayWrite(membership);
  const names = new Map(props.catalogs.map((catalog) => [catalog.key, catalog.name]));
  return (
    <Layout
      title={`Built-in catalogues · ${membership.name}`}
      viewer={props.viewer}
      section={{ kind: 'organization', organizationId: membership.organizationId, page: 'frameworks' }}
    >
      <h1>Add a framework from a built-in catalogue</h1>
      <p class="lead">
        Each catalogue holds a standard's or law's structure and references as published, with titles and
        guidance written for this service. Adopting one creates the framework with its requirements; adopting
        it again updates it. Measures already mapped to another catalogue are proposed for this one through
        the crosswalks: nothing is mapped until someone accepts them (an assistant with
        acceptMappingProposals). Or <a href={`${base}/frameworks/new`}>add your own framework</a>.
      </p>
      {!writable && (
        <Notice kind="ok">Your role is {membership.role}: editors, admins and owners adopt.</Notice>
      )}
      <DataTable
        items={props.catalogs}
        empty="No catalogues ship with this instance."
        caption={`${props.catalogs.length} catalogues`}
        columns={[
          {
            header: 'Catalogue',
            class: 'wrap',
            cell: (catalog) => (
              <>
                <strong>{catalog.name}</strong>
                <br />
                <span class="small muted">{catalog.description}</span>
              </>
            ),
          },
          {
            header: 'Edition',
            class: 'wrap',
            cell: (catalog) => (
              <>
                {catalog.edition}
                <br />
                <span class="small muted">{catalog.publisher}</span>
              </>
            ),
          },
          { header: 'Requirements', class: 'num', cell: (catalog) => catalog.requirements },
          { header: 'Sections', class: 'num', cell: (catalog) => catalog.sections },
          {
            header: 'Crosswalks',
            class: 'wrap',
            cell: (catalog) =>
              catalog.crosswalks.length === 0 ? (
                <span class="muted">—</span>
              ) : (
                catalog.crosswalks
                  .map(
                    (crosswalk) =>
                      `${names.get(crosswalk.catalog) ?? crosswalk.catalog} (${crosswalk.mappings})`,
                  )
                  .join(', ')
              ),
          },
          {
            header: 'Adopt',
            cell: (catalog) => (
              <>
                {catalog.adopted && (
                  <>
                    <a href={`${base}/frameworks/${catalog.adopted.framework_id}`}>{catalog.adopted.name}</a>
                    <br />
                  </>
                )}
                {writable && (
                  <form
                    method="post"
                    action={`${base}/frameworks/catalogues/${catalog.key}`}
                    class="inline-form"
                  >
                    <CsrfField token={props.viewer.csrfToken} />
                    <button
                      type="submit"
                      class={catalog.adopted ? 'button small quiet' : 'button small'}
                      aria-label={`${catalog.adopted ? 'Update' : 'Adopt'} ${catalog.name}`}
                    >
                      {catalog.adopted ? 'Update' : 'Adopt'}
                    </button>
                  </form>
                )}
              </>
            ),
          },
        ]}
      />
    </Layout>
  );
}

export function catalogRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();

  web.get(CATALOGS_PATH, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    const outcome = await webCalls(c, deps).read(listCatalogsTool, {
      organization_id: membership.organizationId,
    });
    if (!outcome.ok)
      return errorPage(
        c,
        outcome.error.status as 400,
        'Something went wrong',
        outcome.error.message,
        viewerOf(c),
      );
    return sendPage(
      c,
      <CatalogsPage
        viewer={viewerOf(c)}
        membership={membership}
        catalogs={outcome.result.catalogs as CatalogRow[]}
      />,
    );
  });

  web.post(`${CATALOGS_PATH}/:key{[a-z0-9.-]+}`, async (c) => {
    const membership = membershipOf(c, c.req.param('org') ?? '');
    if (!membership) return notFoundPage(c, viewerOf(c));
    if (!mayWrite(membership)) return notAllowedPage(c, membership);
    const outcome = await webCalls(c, deps).write(importCatalogTool, {
      organization_id: membership.organizationId,
      catalog: c.req.param('key'),
    });
    if (!outcome.ok)
      return errorPage(c, outcome.error.status as 400, 'Not adopted', outcome.error.message, viewerOf(c));
    const framework = outcome.result.framework as { id: string; name: string; created: boolean };
    const counts = outcome.result.counts as { created: number; updated: number; unchanged: number };
    const proposals = outcome.result.proposals as { created: number } | null;
    setFlash(
      c,
      `${framework.name} ${framework.created ? 'was adopted' : 'was updated'}: ${counts.created} requirements and sections added, ${counts.updated} updated, ${counts.unchanged} unchanged.${proposals && proposals.created > 0 ? ` ${proposals.created} mappings of your measures are proposed through the crosswalks: accept or decline them with acceptMappingProposals or declineMappingProposals.` : ''}`,
    );
    return c.redirect(`/orgs/${membership.organizationId}/frameworks/${framework.id}`, 303);
  });

  return web;
}
