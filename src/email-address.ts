// Email addresses as sign-up takes them, checked after a length limit in time linear in their length
// (docs/security.md, "Input limits"): the pattern this replaces backtracked quadratically (`a@....@`).

/** RFC 5321's limit on an address (a path of 256 characters less its angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

// One @; a local part of 1 to 64 characters; a domain of at least two labels split by single dots; no white space.
// Each run ends at a character the next part starts with (@ or .), so no character is read twice.
const EMAIL_SHAPE = /^[^\s@]{1,64}@[^\s@.]+(?:\.[^\s@.]+)+$/;

export function isEmailAddress(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && EMAIL_SHAPE.test(value);
}
