// The form fields shared by "Generate New Token" and the OAuth consent page: scope and organizations.
import type { TokenScope } from '../auth/principal.ts';
import type { Membership } from './context.ts';

export function ScopeFieldset(props: {
  idPrefix: string;
  name: string;
  legend: string;
  value: TokenScope;
  recommendRead?: boolean;
}) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      <div class="choice">
        <input
          type="radio"
          id={`${props.idPrefix}-read`}
          name={props.name}
          value="read"
          checked={props.value === 'read'}
        />
        <label for={`${props.idPrefix}-read`}>
          <strong>read</strong> – list and get records{props.recommendRead ? ' (recommended)' : ''}
        </label>
      </div>
      <div class="choice">
        <input
          type="radio"
          id={`${props.idPrefix}-propose`}
          name={props.name}
          value="propose"
          checked={props.value === 'propose'}
        />
        <label for={`${props.idPrefix}-propose`}>
          <strong>propose</strong> – read, and propose adds, updates and deletes that a person approves here
        </label>
      </div>
      <div class="choice">
        <input
          type="radio"
          id={`${props.idPrefix}-read-write`}
          name={props.name}
          value="read_write"
          checked={props.value === 'read_write'}
        />
        <label for={`${props.idPrefix}-read-write`}>
          <strong>read_write</strong> – also add, update and delete records, where your role allows it
        </label>
      </div>
    </fieldset>
  );
}

export function OrganizationsFieldset(props: {
  idPrefix: string;
  legend: string;
  memberships: Membership[];
  mode: 'all' | 'some';
  selected: ReadonlySet<string>;
}) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      <div class="choice">
        <input
          type="radio"
          id={`${props.idPrefix}-all`}
          name="organization_mode"
          value="all"
          checked={props.mode === 'all'}
        />
        <label for={`${props.idPrefix}-all`}>
          All organizations you belong to now (one you join later too if you say so when you accept)
        </label>
      </div>
      <div class="choice">
        <input
          type="radio"
          id={`${props.idPrefix}-some`}
          name="organization_mode"
          value="some"
          checked={props.mode === 'some'}
        />
        <label for={`${props.idPrefix}-some`}>Only these:</label>
      </div>
      <div class="indent">
        {props.memberships.length === 0 && (
          <p class="muted small">You do not belong to any organization yet.</p>
        )}
        {props.memberships.map((membership) => (
          <div class="choice">
            <input
              type="checkbox"
              id={`${props.idPrefix}-${membership.organizationId}`}
              name="organizations"
              value={membership.organizationId}
              checked={props.selected.has(membership.organizationId)}
            />
            <label for={`${props.idPrefix}-${membership.organizationId}`}>
              {membership.name} <span class="muted small">({membership.role})</span>
            </label>
          </div>
        ))}
      </div>
    </fieldset>
  );
}
