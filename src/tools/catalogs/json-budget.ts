// JSON measured against a parse budget before JSON.parse builds it (docs/security.md, "Input limits"): its length,
// how deep it nests and how many values it holds, so what a catalog costs in memory follows its size, and nesting
// deep enough to overflow a reader's recursion never reaches one. One pass over the text, nothing built.
import { invalidArguments } from '../../errors.ts';

export interface JsonBudget {
  /** Characters of the text. */
  maxLength: number;
  /** Objects and arrays inside one another. */
  maxDepth: number;
  /** Values: objects, arrays, strings (member names too), numbers, true, false, null. */
  maxValues: number;
}

const format = (count: number) => count.toLocaleString('en');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether the character code may start or continue a number or literal (true, false, null). */
function isScalarCode(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || // 0-9
    (code >= 0x61 && code <= 0x7a) || // a-z (true, false, null, e)
    code === 0x2d || // -
    code === 0x2b || // +
    code === 0x2e || // .
    code === 0x45 // E
  );
}

/** Throws invalid_arguments naming the first limit `text` passes (`what`: "The catalog"). Not JSON: left to JSON.parse. */
export function checkJsonBudget(text: string, budget: JsonBudget, what: string): void {
  const refuse = (limit: string, message: string) =>
    invalidArguments(`${what} is refused: ${message}`, [{ path: 'content', message: limit }]);
  if (text.length > budget.maxLength)
    throw refuse(
      `Over the length limit: ${budget.maxLength} characters`,
      `it has more than ${format(budget.maxLength)} characters, the limit of its length.`,
    );
  let depth = 0;
  let values = 0;
  let inString = false;
  let inScalar = false;
  const counted = () => {
    values++;
    if (values > budget.maxValues)
      throw refuse(
        `Over the value limit: ${budget.maxValues} values`,
        `it holds more than ${format(budget.maxValues)} values, the limit of a parse.`,
      );
  };
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (inString) {
      if (code === BACKSLASH) at++;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (isScalarCode(code)) {
      if (!inScalar) counted();
      inScalar = true;
      continue;
    }
    inScalar = false;
    if (code === QUOTE) {
      inString = true;
      counted();
    } else if (code === 0x7b || code === 0x5b) {
      // { or [
      counted();
      depth++;
      if (depth > budget.maxDepth)
        throw refuse(
          `Over the depth limit: ${budget.maxDepth} levels`,
          `it nests more than ${budget.maxDepth} levels deep, the limit of a parse.`,
        );
    } else if (code === 0x7d || code === 0x5d) depth--; // } or ]
  }
}
