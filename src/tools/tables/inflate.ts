// Zip entries inflated under a running byte budget (docs/security.md, "Input limits"): an XLSX workbook is a zip, and
// a zip bomb (150 KB that inflate to 150 MB) is refused at the first piece over a limit, before the memory is gone.
// The same code on Node and in workerd (fflate, pure JavaScript).
import { Inflate } from 'fflate';
import { invalidArguments } from '../../errors.ts';

export interface InflateLimits {
  /** Inflated bytes of one entry (one part of a workbook). */
  maxEntryBytes: number;
  /** Inflated bytes of all the entries read from one file. */
  maxTotalBytes: number;
  /** Inflated bytes per compressed byte of an entry, once it has inflated past RATIO_GRACE_BYTES. */
  maxRatio: number;
}

/** A small entry can compress far better than its ratio limit (a part of empty XML): the ratio counts past this. */
export const RATIO_GRACE_BYTES = 1024 * 1024;

/** Compressed bytes given to the inflater at a time: deflate's best is ~1,032:1, so one step makes at most ~1 MiB. */
const STEP = 1024;

const format = (bytes: number) => bytes.toLocaleString('en');

export interface InflatingEntry {
  /** The entry's next compressed bytes (pieces of any size); `final` with its last ones. */
  push(data: Uint8Array, final: boolean): void;
}

export interface InflateBudget {
  /**
   * An entry to inflate (`method` 8) or read as stored (0): its bytes go to `onData` as they come, and the first
   * piece that takes the entry or the file over a limit throws invalid_arguments naming the limit instead.
   */
  entry(name: string, method: number, onData: (chunk: Uint8Array, final: boolean) => void): InflatingEntry;
  /** Inflated bytes so far, all entries together. */
  readonly totalBytes: number;
}

/** A budget for the entries of one file; `what` names the file in errors ("The workbook"). */
export function inflateBudget(limits: InflateLimits, what: string): InflateBudget {
  let totalBytes = 0;
  const refuse = (name: string, limit: string, message: string) =>
    invalidArguments(`${what} is refused: ${message}`, [{ path: name, message: limit }]);
  return {
    get totalBytes() {
      return totalBytes;
    },
    entry(name, method, onData) {
      if (method !== 0 && method !== 8)
        throw invalidArguments(`${what} uses a compression this reader does not know (method ${method}).`);
      let entryBytes = 0;
      let compressedBytes = 0;
      const count = (chunk: Uint8Array, final: boolean) => {
        entryBytes += chunk.byteLength;
        totalBytes += chunk.byteLength;
        if (entryBytes > limits.maxEntryBytes)
          throw refuse(
            name,
            `Over the limit of one part: ${limits.maxEntryBytes} bytes inflated`,
            `its part ${name} inflates to more than ${format(limits.maxEntryBytes)} bytes, the limit of one part.`,
          );
        if (totalBytes > limits.maxTotalBytes)
          throw refuse(
            name,
            `Over the limit of a file: ${limits.maxTotalBytes} bytes inflated`,
            `its parts inflate to more than ${format(limits.maxTotalBytes)} bytes together, the limit of a file.`,
          );
        if (entryBytes > RATIO_GRACE_BYTES && entryBytes > limits.maxRatio * compressedBytes)
          throw refuse(
            name,
            `Over the inflate ratio limit: ${limits.maxRatio} times its compressed size`,
            `its part ${name} inflates to more than ${limits.maxRatio} times its compressed size, the ratio limit (a zip bomb?).`,
          );
        onData(chunk, final);
      };
      if (method === 0)
        return {
          push(data, final) {
            compressedBytes += data.byteLength;
            count(data, final);
          },
        };
      const inflater = new Inflate(count);
      return {
        push(data, final) {
          if (data.byteLength === 0) inflater.push(data, final);
          for (let at = 0; at < data.byteLength; at += STEP) {
            const piece = data.subarray(at, at + STEP);
            compressedBytes += piece.byteLength;
            inflater.push(piece, final && at + STEP >= data.byteLength);
          }
        },
      };
    },
  };
}
