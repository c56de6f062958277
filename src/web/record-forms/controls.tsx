// The controls of a record form, one per field kind: text, numbers, dates, enums, references with pickers, lists.

import { Counter } from '../forms.tsx';
import { valueLabel } from '../labels.ts';
import type { Picker } from '../tool-calls.ts';
import type { FormField } from './fields.ts';

export function controlId(field: FormField): string {
  return `field-${field.name}`;
}

export function FieldControl(props: {
  field: FormField;
  value: string | string[];
  error?: string;
  picker?: Picker;
  autofocus?: boolean;
}) {
  const { field, error, picker } = props;
  const id = controlId(field);
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [field.description ? hintId : null, error ? errorId : null].filter(Boolean).join(' ');
  const common = {
    id,
    name: field.name,
    'aria-describedby': describedBy || undefined,
    'aria-invalid': error ? ('true' as const) : undefined,
    autofocus: props.autofocus || undefined,
  };
  const text = typeof props.value === 'string' ? props.value : props.value.join('\n');
  const label = `${field.label}${field.required ? '' : ' (optional)'}`;
  const hint = field.description && (
    <span class="hint" id={hintId}>
      {field.kind === 'list' ? `${field.description} One per line.` : field.description}
    </span>
  );
  const errorText = error && (
    <span class="hint error-text" id={errorId}>
      {error}
    </span>
  );

  if (field.kind === 'refs') {
    const selected = new Set(Array.isArray(props.value) ? props.value : []);
    if (picker?.complete) {
      return (
        <fieldset aria-describedby={describedBy || undefined} id={id}>
          <legend>{label}</legend>
          {picker.choices.length === 0 && <p class="muted small">None in this organization yet.</p>}
          {picker.choices.map((choice) => (
            <label class="choice">
              <input type="checkbox" name={field.name} value={choice.id} checked={selected.has(choice.id)} />
              <span>{choice.name}</span>
            </label>
          ))}
          {hint}
          {errorText}
        </fieldset>
      );
    }
    return (
      <div class="field">
        <label for={id}>{label}</label>
        <input {...common} type="text" value={[...selected].join(', ')} />
        <span class="hint">
          Ids separated by commas. There are {picker?.total ?? 'many'} records:{' '}
          {picker && (
            <a href={picker.registerHref} target="_blank" rel="noopener">
              find their ids in the register
            </a>
          )}
          .
        </span>
        {hint}
        {errorText}
      </div>
    );
  }

  let control: unknown;
  if (field.kind === 'ref') {
    if (picker?.complete) {
      const known = picker.choices.some((choice) => choice.id === text);
      control = (
        <select {...common} required={field.required}>
          <option value="">{field.required ? 'Choose…' : '— none —'}</option>
          {picker.choices.map((choice) => (
            <option value={choice.id} selected={choice.id === text}>
              {choice.name}
            </option>
          ))}
          {text && !known && (
            <option value={text} selected>
              {text}
            </option>
          )}
        </select>
      );
    } else {
      const listId = `${id}-choices`;
      control = (
        <>
          <input {...common} type="text" value={text} list={listId} required={field.required} />
          <datalist id={listId}>
            {(picker?.choices ?? []).map((choice) => (
              <option value={choice.id} label={choice.name} />
            ))}
          </datalist>
          <span class="hint">
            An id. Suggestions list {picker?.choices.length ?? 0} of {picker?.total ?? 0};{' '}
            {picker && (
              <a href={picker.registerHref} target="_blank" rel="noopener">
                search the register
              </a>
            )}{' '}
            for the others.
          </span>
        </>
      );
    }
  } else if (field.kind === 'enum') {
    const empty = !field.required && field.defaultValue === undefined;
    control = (
      <select {...common}>
        {empty && <option value="">— none —</option>}
        {field.options.map((option) => (
          <option value={option} selected={option === text}>
            {valueLabel(option)}
          </option>
        ))}
        {text && !field.options.includes(text) && (
          <option value={text} selected>
            {text}
          </option>
        )}
      </select>
    );
  } else if (field.kind === 'boolean') {
    return (
      <div class="field">
        <label class="choice">
          <input {...common} type="checkbox" value="true" checked={text === 'true'} />
          <span>{label}</span>
        </label>
        {hint}
        {errorText}
      </div>
    );
  } else if (field.kind === 'textarea' || field.kind === 'list') {
    control = (
      <textarea {...common} rows={field.kind === 'list' ? 3 : 4} data-limit={limitOf(field)}>
        {text}
      </textarea>
    );
  } else {
    const type =
      field.kind === 'integer' || field.kind === 'number'
        ? 'number'
        : field.kind === 'date' || field.kind === 'url' || field.kind === 'email'
          ? field.kind
          : 'text';
    control = (
      <input
        {...common}
        type={type}
        value={text}
        required={field.required}
        min={field.min}
        max={field.max}
        step={field.kind === 'number' ? 'any' : undefined}
        data-limit={limitOf(field)}
      />
    );
  }
  const limit = limitOf(field);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {control}
      {limit !== undefined && <Counter id={id} length={text.length} limit={limit} />}
      {hint}
      {errorText}
    </div>
  );
}

/**
 * A text field's length limit, shown with a counter and checked on save (never `maxlength`: a browser cuts a longer
 * paste short without a word). Lists are limited per item, not shown.
 */
function limitOf(field: FormField): number | undefined {
  return field.kind === 'list' ? undefined : field.maxLength;
}
