// A record's other side: the records of other registers that point at it (the risks a person owns, the
// nonconformities an audit raised, the assets a vendor hosts), each list read through its register's own filter.
import type { PointingField } from '../../tools/registers/references.ts';
import { fieldLabelOf, targetsOf } from '../../tools/registers/spec.ts';
import { displayName, type RegisterPage, registerPageByKind } from '../register-pages.ts';
import type { WebCalls } from '../tool-calls.ts';

type Row = Record<string, unknown>;

/** How many records of each list a record page names (the rest are a link away). */
const SHOWN = 10;

export interface Backlink {
  /** "Risks · owner" */
  label: string;
  records: { id: string; name: string; href: string }[];
  total: number;
  totalCapped: boolean;
  /** The register's list filtered to them. */
  href: string;
}

/** The filter of `page`'s register that selects the records whose `field` points at one record, if it has one. */
function filterFor(page: RegisterPage, field: string): string | undefined {
  const name = field.endsWith('_ids') ? field.slice(0, -1) : field;
  return page.spec.filters?.[name] ? name : undefined;
}

/** Every register field pointing at `page`'s kind, but the other sides the record already shows as its fields. */
function pointingFields(page: RegisterPage): PointingField[] {
  const effects = page.tools.deleteEffects;
  const shownAsFields = new Set(
    (page.spec.relations ?? []).filter((relation) => relation.inverse).flatMap(targetsOf),
  );
  return [...effects.clears, ...effects.blockedBy, ...effects.removesFrom, ...effects.deletes].filter(
    (pointing) => !shownAsFields.has(pointing.kind),
  );
}

export async function backlinksOf(
  calls: WebCalls,
  organizationId: string,
  page: RegisterPage,
  id: string,
  /** Kinds the page shows in a section of their own (a record's tasks). */
  except: readonly string[] = [],
): Promise<Backlink[]> {
  const pointing = pointingFields(page).filter((field) => !except.includes(field.kind));
  const lists = pointing.map(async (pointing): Promise<Backlink | null> => {
    const other = registerPageByKind(pointing.kind);
    const filter = other ? filterFor(other, pointing.field) : undefined;
    if (!other || !filter) return null;
    const result = await calls.run(other.tools.list, {
      organization_id: organizationId,
      filter: { [filter]: id },
      size: SHOWN,
    });
    const records = (result[other.spec.listKey] as Row[] | undefined) ?? [];
    if (records.length === 0) return null;
    return {
      label: `${other.title} · ${fieldLabelOf(other.spec, pointing.field).toLowerCase()}`,
      records: records.map((record) => ({
        id: String(record.id),
        name: displayName(record),
        href: `/orgs/${organizationId}/${other.slug}/${String(record.id)}`,
      })),
      total: Number(result.total_count ?? records.length),
      totalCapped: result.total_count_capped === true,
      href: `/orgs/${organizationId}/${other.slug}?${new URLSearchParams({ [filter]: id })}`,
    };
  });
  return (await Promise.all(lists)).filter((item): item is Backlink => item !== null);
}

export function Backlinks({ links }: { links: Backlink[] }) {
  if (links.length === 0) return null;
  return (
    <>
      <h2 id="linked">Linked records</h2>
      <div class="card">
        <dl class="details">
          {links.map((link) => (
            <>
              <dt>{link.label}</dt>
              <dd>
                {link.records.map((record, index) => (
                  <>
                    {index > 0 && ', '}
                    <a href={record.href} dir="auto">
                      {record.name}
                    </a>
                  </>
                ))}
                {(link.total > link.records.length || link.totalCapped) && (
                  <>
                    {' '}
                    · <a href={link.href}>all {link.totalCapped ? `${link.total}+` : link.total}</a>
                  </>
                )}
              </dd>
            </>
          ))}
        </dl>
      </div>
    </>
  );
}
