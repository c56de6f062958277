// A stored file's content type comes from its first bytes (magic numbers), never from the client; text is told by a
// UTF-8 check of every byte. Nothing is ever served as HTML or SVG.

/** Bytes the magic numbers need. */
export const SNIFF_BYTES = 16;

const OCTET_STREAM = 'application/octet-stream';

const OOXML_TYPES: Record<string, string> = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

const TEXT_TYPES: Record<string, string> = {
  csv: 'text/csv',
  json: 'application/json',
  md: 'text/markdown',
  markdown: 'text/markdown',
};

function startsWith(head: Uint8Array, bytes: readonly number[], at = 0): boolean {
  return bytes.every((byte, index) => head[at + index] === byte);
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/**
 * The served type of a file whose first bytes are `head`: a known binary format by its magic number, else (when
 * every byte was valid UTF-8 without control characters) a text type chosen by the name's extension among plain
 * text, CSV, JSON and Markdown; anything else is application/octet-stream. The name only picks among equivalent
 * types: an Office document is a ZIP by its bytes, and a `.html` or `.svg` of text is text/plain.
 */
export function sniffContentType(head: Uint8Array, name: string, isText: boolean): string {
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (
    startsWith(head, [0x47, 0x49, 0x46, 0x38]) &&
    (head[4] === 0x37 || head[4] === 0x39) &&
    head[5] === 0x61
  )
    return 'image/gif';
  if (startsWith(head, [0x52, 0x49, 0x46, 0x46]) && startsWith(head, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06]))
    return OOXML_TYPES[extensionOf(name)] ?? 'application/zip';
  if (isText) return `${TEXT_TYPES[extensionOf(name)] ?? 'text/plain'}; charset=utf-8`;
  return OCTET_STREAM;
}

/**
 * Checks bytes as they stream: valid UTF-8 (a sequence split across chunks is fine) with no control characters but
 * tab, line feed, carriage return and form feed.
 */
export function createTextCheck(): { update(chunk: Uint8Array): void; isText(): boolean } {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let text = true;
  const check = (decoded: string) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is looked for
    if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(decoded)) text = false;
  };
  return {
    update(chunk) {
      if (!text) return;
      try {
        check(decoder.decode(chunk, { stream: true }));
      } catch {
        text = false;
      }
    },
    isText() {
      if (!text) return false;
      try {
        check(decoder.decode());
      } catch {
        text = false;
      }
      return text;
    },
  };
}

const RESERVED_NAMES = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;

/**
 * A file name safe to store and to send back in Content-Disposition: the last path segment, without control
 * characters, quotes, slashes and other characters file systems refuse, no leading dots, at most 200 characters
 * (the extension kept); `file` when nothing is left.
 */
export function sanitizeFileName(raw: string): string {
  const last = raw.split(/[/\\]/).pop() ?? '';
  let name = last
    .normalize('NFC')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are removed from names
    .replace(/[\u0000-\u001f\u007f-\u009f"*:<>?|\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+/, '')
    .replace(/(?<![.\s])[.\s]+$/, ''); // tried only where a run starts: linear
  if (RESERVED_NAMES.test(name)) name = `_${name}`;
  if (name.length > 200) {
    const extension = extensionOf(name);
    const keep = extension.length > 0 && extension.length <= 10 ? `.${extension}` : '';
    name = name.slice(0, 200 - keep.length).trimEnd() + keep;
  }
  return name.length > 0 ? name : 'file';
}
