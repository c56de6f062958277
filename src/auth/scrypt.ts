// scrypt (RFC 7914) in plain JavaScript over WebCrypto's PBKDF2: the Worker has no native scrypt, and verifies
// hashes made by the Node host's native one (node:crypto) with it. Same inputs, same bytes as node:crypto.scrypt.

export interface ScryptParameters {
  /** CPU/memory cost, a power of two; the work area is 128 * r * N bytes. */
  N: number;
  /** Block size (8 everywhere here). */
  r: number;
  /** Parallelisation: ROMix runs p times, one after the other, reusing the work area. */
  p: number;
}

async function pbkdf2Sha256(
  password: Uint8Array<ArrayBuffer>,
  salt: Uint8Array<ArrayBuffer>,
  bytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const key = await crypto.subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: 1 },
    key,
    bytes * 8,
  );
  return new Uint8Array(bits);
}

/** Salsa20/8 of the 16 words in `state`: the result is left in `state` and copied to `out` at `outAt`. */
function salsa20x8(state: Uint32Array, out: Uint32Array, outAt: number): void {
  let x0 = state[0] as number;
  let x1 = state[1] as number;
  let x2 = state[2] as number;
  let x3 = state[3] as number;
  let x4 = state[4] as number;
  let x5 = state[5] as number;
  let x6 = state[6] as number;
  let x7 = state[7] as number;
  let x8 = state[8] as number;
  let x9 = state[9] as number;
  let x10 = state[10] as number;
  let x11 = state[11] as number;
  let x12 = state[12] as number;
  let x13 = state[13] as number;
  let x14 = state[14] as number;
  let x15 = state[15] as number;
  let t: number;
  for (let round = 0; round < 8; round += 2) {
    // Columns.
    t = (x0 + x12) | 0;
    x4 ^= (t << 7) | (t >>> 25);
    t = (x4 + x0) | 0;
    x8 ^= (t << 9) | (t >>> 23);
    t = (x8 + x4) | 0;
    x12 ^= (t << 13) | (t >>> 19);
    t = (x12 + x8) | 0;
    x0 ^= (t << 18) | (t >>> 14);
    t = (x5 + x1) | 0;
    x9 ^= (t << 7) | (t >>> 25);
    t = (x9 + x5) | 0;
    x13 ^= (t << 9) | (t >>> 23);
    t = (x13 + x9) | 0;
    x1 ^= (t << 13) | (t >>> 19);
    t = (x1 + x13) | 0;
    x5 ^= (t << 18) | (t >>> 14);
    t = (x10 + x6) | 0;
    x14 ^= (t << 7) | (t >>> 25);
    t = (x14 + x10) | 0;
    x2 ^= (t << 9) | (t >>> 23);
    t = (x2 + x14) | 0;
    x6 ^= (t << 13) | (t >>> 19);
    t = (x6 + x2) | 0;
    x10 ^= (t << 18) | (t >>> 14);
    t = (x15 + x11) | 0;
    x3 ^= (t << 7) | (t >>> 25);
    t = (x3 + x15) | 0;
    x7 ^= (t << 9) | (t >>> 23);
    t = (x7 + x3) | 0;
    x11 ^= (t << 13) | (t >>> 19);
    t = (x11 + x7) | 0;
    x15 ^= (t << 18) | (t >>> 14);
    // Rows.
    t = (x0 + x3) | 0;
    x1 ^= (t << 7) | (t >>> 25);
    t = (x1 + x0) | 0;
    x2 ^= (t << 9) | (t >>> 23);
    t = (x2 + x1) | 0;
    x3 ^= (t << 13) | (t >>> 19);
    t = (x3 + x2) | 0;
    x0 ^= (t << 18) | (t >>> 14);
    t = (x5 + x4) | 0;
    x6 ^= (t << 7) | (t >>> 25);
    t = (x6 + x5) | 0;
    x7 ^= (t << 9) | (t >>> 23);
    t = (x7 + x6) | 0;
    x4 ^= (t << 13) | (t >>> 19);
    t = (x4 + x7) | 0;
    x5 ^= (t << 18) | (t >>> 14);
    t = (x10 + x9) | 0;
    x11 ^= (t << 7) | (t >>> 25);
    t = (x11 + x10) | 0;
    x8 ^= (t << 9) | (t >>> 23);
    t = (x8 + x11) | 0;
    x9 ^= (t << 13) | (t >>> 19);
    t = (x9 + x8) | 0;
    x10 ^= (t << 18) | (t >>> 14);
    t = (x15 + x14) | 0;
    x12 ^= (t << 7) | (t >>> 25);
    t = (x12 + x15) | 0;
    x13 ^= (t << 9) | (t >>> 23);
    t = (x13 + x12) | 0;
    x14 ^= (t << 13) | (t >>> 19);
    t = (x14 + x13) | 0;
    x15 ^= (t << 18) | (t >>> 14);
  }
  out[outAt] = state[0] = ((state[0] as number) + x0) | 0;
  out[outAt + 1] = state[1] = ((state[1] as number) + x1) | 0;
  out[outAt + 2] = state[2] = ((state[2] as number) + x2) | 0;
  out[outAt + 3] = state[3] = ((state[3] as number) + x3) | 0;
  out[outAt + 4] = state[4] = ((state[4] as number) + x4) | 0;
  out[outAt + 5] = state[5] = ((state[5] as number) + x5) | 0;
  out[outAt + 6] = state[6] = ((state[6] as number) + x6) | 0;
  out[outAt + 7] = state[7] = ((state[7] as number) + x7) | 0;
  out[outAt + 8] = state[8] = ((state[8] as number) + x8) | 0;
  out[outAt + 9] = state[9] = ((state[9] as number) + x9) | 0;
  out[outAt + 10] = state[10] = ((state[10] as number) + x10) | 0;
  out[outAt + 11] = state[11] = ((state[11] as number) + x11) | 0;
  out[outAt + 12] = state[12] = ((state[12] as number) + x12) | 0;
  out[outAt + 13] = state[13] = ((state[13] as number) + x13) | 0;
  out[outAt + 14] = state[14] = ((state[14] as number) + x14) | 0;
  out[outAt + 15] = state[15] = ((state[15] as number) + x15) | 0;
}

/**
 * BlockMix with Salsa20/8 of `source` (2r blocks of 16 words, xor-ed with `mix` at `mixAt` when given) into `out`:
 * even blocks to the first half, odd ones to the second, as RFC 7914 orders them.
 */
function blockMix(
  source: Uint32Array,
  mix: Uint32Array | null,
  mixAt: number,
  out: Uint32Array,
  state: Uint32Array,
  r: number,
): void {
  const last = (2 * r - 1) * 16;
  for (let k = 0; k < 16; k++)
    state[k] = (source[last + k] as number) ^ (mix ? (mix[mixAt + last + k] as number) : 0);
  for (let block = 0; block < 2 * r; block++) {
    const at = block * 16;
    if (mix)
      for (let k = 0; k < 16; k++)
        state[k] = (state[k] as number) ^ (source[at + k] as number) ^ (mix[mixAt + at + k] as number);
    else for (let k = 0; k < 16; k++) state[k] = (state[k] as number) ^ (source[at + k] as number);
    salsa20x8(state, out, ((block & 1) * r + (block >> 1)) * 16);
  }
}

/** ROMix of one 128*r-byte block of `bytes` at `offset`, in place; `work` is the 32*r*N-word area. */
function roMix(bytes: Uint8Array, offset: number, N: number, r: number, work: Uint32Array): void {
  const words = 32 * r;
  let x = new Uint32Array(words);
  let y = new Uint32Array(words);
  const state = new Uint32Array(16);
  for (let k = 0; k < words; k++) {
    const at = offset + k * 4;
    x[k] =
      ((bytes[at] as number) |
        ((bytes[at + 1] as number) << 8) |
        ((bytes[at + 2] as number) << 16) |
        ((bytes[at + 3] as number) << 24)) >>>
      0;
  }
  for (let i = 0; i < N; i++) {
    work.set(x, i * words);
    blockMix(x, null, 0, y, state, r);
    [x, y] = [y, x];
  }
  const mask = N - 1;
  for (let i = 0; i < N; i++) {
    // Integerify: the first word of the last 64-byte block; N is at most 2^31, so the low word is enough.
    const j = (x[(2 * r - 1) * 16] as number) & mask;
    blockMix(x, work, j * words, y, state, r);
    [x, y] = [y, x];
  }
  for (let k = 0; k < words; k++) {
    const word = x[k] as number;
    const at = offset + k * 4;
    bytes[at] = word & 255;
    bytes[at + 1] = (word >>> 8) & 255;
    bytes[at + 2] = (word >>> 16) & 255;
    bytes[at + 3] = (word >>> 24) & 255;
  }
}

/** ROMix of each of the p blocks in turn, in place; the 128*r*N-byte work area lives only as long as this call. */
function mixBlocks(blocks: Uint8Array, { N, r, p }: ScryptParameters): void {
  const work = new Uint32Array(32 * r * N);
  for (let i = 0; i < p; i++) roMix(blocks, i * 128 * r, N, r, work);
}

/** scrypt(password, salt, N, r, p) to `keyLength` bytes; throws on parameters RFC 7914 refuses. */
export async function scryptWeb(
  password: Uint8Array<ArrayBuffer>,
  salt: Uint8Array<ArrayBuffer>,
  parameters: ScryptParameters,
  keyLength: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const { N, r, p } = parameters;
  const valid = Number.isInteger(N) && N >= 2 && (N & (N - 1)) === 0 && Number.isInteger(r) && r >= 1;
  if (!valid || !Number.isInteger(p) || p < 1)
    throw new RangeError('scrypt: N must be a power of two above 1, r and p positive integers');
  const blocks = await pbkdf2Sha256(password, salt, p * 128 * r);
  mixBlocks(blocks, parameters);
  return pbkdf2Sha256(password, blocks, keyLength);
}
