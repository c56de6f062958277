// JSON read as it streams in (a stored file of several MB), built only where the reader wants it: members it does not
// keep are skipped with their whole subtree, and a finished object may be replaced by a smaller one. What stays in
// memory is what is kept, not the text; the parse budget (length, depth, values) is counted on the way.
import { invalidArguments } from '../../errors.ts';
import type { JsonBudget } from './json-budget.ts';

type Json = Record<string, unknown>;

export interface StreamOptions {
  budget: JsonBudget;
  /** "The catalog": how messages name the document. */
  what: string;
  /** Whether an object's member is built (else skipped, with everything in it). */
  keep(key: string): boolean;
  /**
   * A finished object, in the member `key` of its parent (an object in an array: the array's member; null at the
   * top): what is kept of it.
   */
  finish?(value: Json, key: string | null): unknown;
}

interface Frame {
  /** The container being built, or null while skipping. */
  value: Json | unknown[] | null;
  isArray: boolean;
  /** The member name that holds this container (in an array: the array's), null at the top. */
  key: string | null;
  /** Objects: the member being read, and whether it is kept. */
  pendingKey: string | null;
  keepPending: boolean;
  /** What the grammar expects next. */
  expect: 'key' | 'colon' | 'value' | 'comma';
  /** An array or object that has not had a member yet (so `]` or `}` may close it at once). */
  empty: boolean;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const SCALAR_START = /[-0-9tfn]/;
const SCALAR_CHAR = /[-+.0-9A-Za-z]/;

const format = (count: number) => count.toLocaleString('en');

/** A JSON reader fed text by pieces; `end` answers the top-level value as the options kept it. */
export function createJsonStream(options: StreamOptions) {
  const { budget, what } = options;
  let buffer = '';
  /** Where an unfinished string started in `buffer`, how far it is scanned, and whether a backslash is pending. */
  let stringStart = -1;
  let scanned = 0;
  let escaped = false;
  let length = 0;
  let values = 0;
  const stack: Frame[] = [];
  let root: unknown;
  let done = false;

  function refuse(message: string, path = 'content'): never {
    throw invalidArguments(`${what} is refused: ${message}`, [{ path, message }]);
  }
  function malformed(message: string): never {
    refuse(`not JSON (${message}, near character ${format(length - buffer.length)})`);
  }

  const counted = () => {
    values++;
    if (values > budget.maxValues)
      refuse(`it holds more than ${format(budget.maxValues)} values, the limit of a parse.`);
  };

  const top = () => stack[stack.length - 1];

  /** Whether the value about to start is kept (its container is built and keeps the member). */
  const keptHere = (): boolean => {
    const frame = top();
    if (!frame) return true;
    if (frame.value === null) return false;
    return frame.isArray || frame.keepPending;
  };

  /** Places a finished value in its container (or as the top-level value). */
  const place = (value: unknown) => {
    const frame = top();
    if (!frame) {
      if (done) malformed('more than one value');
      root = value;
      done = true;
      return;
    }
    if (frame.value !== null) {
      if (frame.isArray) (frame.value as unknown[]).push(value);
      else if (frame.keepPending && frame.pendingKey !== null)
        Object.defineProperty(frame.value, frame.pendingKey, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    frame.expect = 'comma';
    frame.empty = false;
  };

  const beforeValue = () => {
    const frame = top();
    if (!frame) {
      if (done) malformed('more than one value');
      return;
    }
    if (frame.expect !== 'value')
      malformed(
        frame.expect === 'key'
          ? 'expected a member name'
          : `expected ${frame.expect === 'colon' ? '":"' : '"," or the end'}`,
      );
  };

  const open = (isArray: boolean) => {
    beforeValue();
    counted();
    if (stack.length + 1 > budget.maxDepth)
      refuse(`it nests more than ${budget.maxDepth} levels deep, the limit of a parse.`);
    const parent = top();
    const kept = keptHere();
    stack.push({
      value: kept ? (isArray ? [] : {}) : null,
      isArray,
      key: parent ? (parent.isArray ? parent.key : parent.pendingKey) : null,
      pendingKey: null,
      keepPending: false,
      expect: isArray ? 'value' : 'key',
      empty: true,
    });
  };

  const close = (isArray: boolean) => {
    const frame = stack.pop();
    if (!frame || frame.isArray !== isArray) malformed(`unexpected "${isArray ? ']' : '}'}"`);
    const ok =
      frame?.expect === 'comma' ||
      (frame?.empty && (isArray ? frame.expect === 'value' : frame.expect === 'key'));
    if (!ok) malformed(`unexpected "${isArray ? ']' : '}'}"`);
    let value: unknown = frame?.value ?? null;
    if (frame && frame.value !== null && !frame.isArray && options.finish)
      value = options.finish(frame.value as Json, frame.key);
    place(value);
  };

  const scalar = (text: string) => {
    beforeValue();
    counted();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      malformed(`"${text.slice(0, 20)}" is not a value`);
    }
    place(keptHere() ? value : null);
  };

  const string = (raw: string) => {
    counted();
    let value: string;
    try {
      value = JSON.parse(raw) as string;
    } catch {
      return malformed('a string with a bad escape or a control character');
    }
    const frame = top();
    if (frame && !frame.isArray && frame.expect === 'key') {
      frame.pendingKey = value;
      frame.keepPending = frame.value !== null && options.keep(value);
      frame.expect = 'colon';
      return;
    }
    beforeValue();
    place(keptHere() ? value : null);
  };

  /** Reads every whole token of the buffer; what is left is the start of an unfinished one. */
  const drain = (final: boolean) => {
    let at = 0;
    const text = buffer;
    while (at < text.length) {
      if (stringStart >= 0) {
        let index = scanned;
        for (; index < text.length; index++) {
          const char = text.charCodeAt(index);
          if (escaped) escaped = false;
          else if (char === 0x5c) escaped = true;
          else if (char === 0x22) break;
        }
        if (index >= text.length) {
          scanned = index;
          break;
        }
        string(text.slice(stringStart, index + 1));
        at = index + 1;
        stringStart = -1;
        continue;
      }
      const char = text.charAt(at);
      if (WHITESPACE.has(char)) {
        at++;
        continue;
      }
      if (char === '"') {
        stringStart = at;
        scanned = at + 1;
        escaped = false;
        continue;
      }
      if (char === '{' || char === '[') {
        open(char === '[');
        at++;
        continue;
      }
      if (char === '}' || char === ']') {
        close(char === ']');
        at++;
        continue;
      }
      if (char === ':') {
        const frame = top();
        if (!frame || frame.isArray || frame.expect !== 'colon') malformed('unexpected ":"');
        frame.expect = 'value';
        at++;
        continue;
      }
      if (char === ',') {
        const frame = top();
        if (frame?.expect !== 'comma') malformed('unexpected ","');
        frame.expect = frame.isArray ? 'value' : 'key';
        frame.pendingKey = null;
        at++;
        continue;
      }
      if (SCALAR_START.test(char)) {
        let end = at + 1;
        while (end < text.length && SCALAR_CHAR.test(text.charAt(end))) end++;
        if (end >= text.length && !final) break;
        scalar(text.slice(at, end));
        at = end;
        continue;
      }
      malformed(`unexpected "${char}"`);
    }
    // Keep only the unfinished token: an unfinished string from its quote (scanned keeps its place in it).
    if (stringStart >= 0) {
      buffer = text.slice(stringStart);
      scanned -= stringStart;
      stringStart = 0;
    } else buffer = text.slice(at);
  };

  return {
    push(piece: string) {
      length += piece.length;
      if (length > budget.maxLength)
        refuse(`it has more than ${format(budget.maxLength)} characters, the limit of its length.`);
      buffer += piece;
      drain(false);
    },
    end(): unknown {
      drain(true);
      if (stringStart >= 0) malformed('a string is not closed');
      if (buffer.trim() !== '') malformed('unexpected end');
      if (stack.length > 0 || !done) malformed('unexpected end');
      return root;
    },
  };
}

/** The UTF-8 text of a byte stream, piece by piece (malformed UTF-8 is refused). */
export async function* textOf(stream: ReadableStream<Uint8Array>, what: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield decode(decoder, value, what, true);
    }
    finished = true;
    yield decode(decoder, undefined, what, false);
  } finally {
    // Stopped early (a limit, a malformed document): the rest of the file is not read.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function decode(decoder: TextDecoder, bytes: Uint8Array | undefined, what: string, stream: boolean): string {
  try {
    // A byte order mark is dropped by the decoder (ignoreBOM is false).
    return decoder.decode(bytes, { stream });
  } catch {
    throw invalidArguments(`${what} is not UTF-8 text.`, [{ path: 'file_id', message: 'Not UTF-8' }]);
  }
}
