// Form helpers: reading fields from a parsed body, and labelled inputs with hints and errors wired for screen readers.
import type { Child } from 'hono/jsx';

export type FormBody = Record<string, string | File | (string | File)[]>;

export function text(body: FormBody, name: string): string {
  const value = body[name];
  return typeof value === 'string' ? value : '';
}

export function texts(body: FormBody, name: string): string[] {
  const value = body[name];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string');
  return typeof value === 'string' ? [value] : [];
}

interface InputProps {
  id: string;
  label: string;
  name?: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'search';
  value?: string | undefined;
  hint?: Child;
  error?: string | undefined;
  required?: boolean;
  autocomplete?: string;
  /** The most characters the server takes: a counter shows it (never `maxlength`, which cuts a paste short). */
  limit?: number;
  minlength?: number;
  autofocus?: boolean;
  min?: number;
  max?: number;
  placeholder?: string;
}

/** A labelled input; its hint and error are announced with it (aria-describedby), an error sets aria-invalid. */
export function Input(props: InputProps) {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  const errorId = props.error ? `${props.id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name ?? props.id}
        type={props.type ?? 'text'}
        value={props.value}
        required={props.required}
        autocomplete={props.autocomplete}
        data-limit={props.limit}
        minlength={props.minlength}
        autofocus={props.autofocus}
        min={props.min}
        max={props.max}
        placeholder={props.placeholder}
        aria-describedby={describedBy}
        aria-invalid={props.error ? 'true' : undefined}
      />
      {props.limit !== undefined && (
        <Counter id={props.id} length={props.value?.length ?? 0} limit={props.limit} />
      )}
      {props.hint && (
        <span class="hint" id={hintId}>
          {props.hint}
        </span>
      )}
      {props.error && (
        <span class="hint error-text" id={errorId}>
          {props.error}
        </span>
      )}
    </div>
  );
}

export function Select(props: {
  id: string;
  label: string;
  name?: string;
  options: readonly { value: string; label: string }[];
  value?: string | undefined;
  hint?: Child;
}) {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name ?? props.id} aria-describedby={hintId}>
        {props.options.map((option) => (
          <option value={option.value} selected={option.value === props.value}>
            {option.label}
          </option>
        ))}
      </select>
      {props.hint && (
        <span class="hint" id={hintId}>
          {props.hint}
        </span>
      )}
    </div>
  );
}

/** "12 / 200", kept current by the page's script as the person types; over the limit it says so. */
export function Counter({ id, length, limit }: { id: string; length: number; limit: number }) {
  return (
    <span class={length > limit ? 'counter over' : 'counter'} id={`${id}-counter`} aria-hidden="true">
      {length.toLocaleString('en')} / {limit.toLocaleString('en')}
    </span>
  );
}
