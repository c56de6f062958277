// Password hashes made by node:crypto (scrypt and PBKDF2, independent of src/auth/), shared by the Node and workerd
// tests: a hash one host makes must verify on the other.

/** The password of both hashes (the web tests' PASSWORD). */
export const HASHED_PASSWORD = 'correct horse battery staple';

/** crypto.scryptSync(HASHED_PASSWORD, bytes 0..15, 32, { N: 16384, r: 8, p: 5 }). */
export const NODE_SCRYPT_HASH =
  'scrypt$n=16384,r=8,p=5$000102030405060708090a0b0c0d0e0f$0fb95226d24318b2d572bc4bedd5a39284716ecfa932f71560827e81bbb296d9';

/** crypto.pbkdf2Sync(HASHED_PASSWORD, bytes 0..15, 100000, 32, 'sha256'): the format of earlier versions. */
export const LEGACY_PBKDF2_HASH =
  'pbkdf2-sha256$100000$000102030405060708090a0b0c0d0e0f$49d49c25f597846209f0d92e7770ab64e1c75e94b4ce6c509265ee67175d2a1e';
