// The write links of a register and a record page (add, import, edit, delete), shown to members who may write.
import { mayWrite } from './access.ts';
import type { Membership } from './context.ts';
import type { RegisterPage } from './register-pages.ts';

type Row = Record<string, unknown>;

/** "Add <kind>" on a register page, for members who may write. */
export function AddRecordLink({ membership, page }: { membership: Membership; page: RegisterPage }) {
  if (!mayWrite(membership)) return null;
  return (
    <p class="actions">
      <a class="button" href={`/orgs/${membership.organizationId}/${page.slug}/new`}>
        Add {page.spec.label}
      </a>
      {page.kind === 'framework' && (
        <a class="button quiet" href={`/orgs/${membership.organizationId}/frameworks/catalogues`}>
          From a built-in catalogue
        </a>
      )}
      {page.importable !== false && (
        <a class="button quiet" href={`/orgs/${membership.organizationId}/${page.slug}/import`}>
          Import from a file
        </a>
      )}
    </p>
  );
}

/** Edit and delete links on a record page, for members who may write. */
export function RecordActions(props: { membership: Membership; page: RegisterPage; record: Row }) {
  if (!mayWrite(props.membership)) return null;
  const base = `/orgs/${props.membership.organizationId}/${props.page.slug}/${String(props.record.id)}`;
  return (
    <p class="actions">
      <a class="button" href={`${base}/edit`}>
        Edit {props.page.spec.label}
      </a>
      <a class="button quiet" href={`${base}/delete`}>
        Delete {props.page.spec.label}
      </a>
    </p>
  );
}
