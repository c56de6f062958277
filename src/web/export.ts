// Streamed downloads (registers, change history): CSV cells escaped, pages pulled one at a time from a list tool.

export interface Page<T> {
  rows: T[];
  nextCursor: string | null;
}

/**
 * A byte stream that asks for the next page only when the reader wants more (pull), so an export of any size holds
 * one page in memory. `head` opens it; `encode` writes a page (`first` for the first one); `tail` closes it.
 */
export function streamPages<T>(options: {
  first: Page<T>;
  next(cursor: string): Promise<Page<T>>;
  head: string | Uint8Array;
  encode(rows: T[], first: boolean): string | Uint8Array;
  /** The end of the file, asked for once every page is written. */
  tail: string | (() => string | Uint8Array);
  onError(error: unknown): void;
}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let pending: Page<T> | null = options.first;
  let cursor: string | null = null;
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (done) return;
        let page = pending;
        pending = null;
        if (!page) {
          if (cursor === null) {
            const tail = typeof options.tail === 'function' ? options.tail() : options.tail;
            controller.enqueue(typeof tail === 'string' ? encoder.encode(tail) : tail);
            controller.close();
            done = true;
            return;
          }
          page = await options.next(cursor);
        }
        const bytes = (part: string | Uint8Array) => (typeof part === 'string' ? encoder.encode(part) : part);
        const head = started ? new Uint8Array() : bytes(options.head);
        const body = bytes(options.encode(page.rows, !started));
        started = true;
        cursor = page.nextCursor;
        if (head.length > 0) controller.enqueue(head);
        if (body.length > 0) controller.enqueue(body);
      } catch (error) {
        options.onError(error);
        controller.error(new Error('The export failed part-way; the file is incomplete.'));
      }
    },
  });
}

const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
} as const;

/** "Acme Health (demo)" -> "acme-health-demo": a safe ASCII file-name part. */
function slugOf(text: string): string {
  const slug = text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|(?<!-)-+$/g, '')
    .slice(0, 40)
    .replace(/(?<!-)-+$/, '');
  return slug || 'organization';
}

export function downloadResponse(
  body: ReadableStream<Uint8Array>,
  options: { organizationName: string; what: string; date: Date; format: 'csv' | 'json' | 'xlsx' | 'pdf' },
): Response {
  const filename = `${slugOf(options.organizationName)}-${slugOf(options.what)}-${options.date.toISOString().slice(0, 10)}.${options.format}`;
  return new Response(body, {
    headers: {
      'content-type': CONTENT_TYPES[options.format],
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}
