// A result's JSON written once (src/tools/result-json.ts) is the text JSON.stringify makes, and a page measured
// against the budget answers the JSON it was measured with.
import { describe, expect, it } from 'vitest';
import { itemsWithinBudget, RESULT_TOKEN_BUDGET } from '../../src/tools/pagination.ts';
import { rememberJson, resultJson } from '../../src/tools/result-json.ts';

describe('resultJson', () => {
  it('writes what JSON.stringify writes, members left out as it leaves them out', () => {
    const results: Record<string, unknown>[] = [
      {},
      {
        risks: [{ id: 'rsk_1', name: 'é "q" \u2028' }],
        next_cursor: null,
        total_count: 1,
        total_count_capped: false,
      },
      {
        a: undefined,
        b: () => 1,
        c: Symbol('s'),
        d: new Date(0),
        e: 'x',
        f: [undefined, 1],
        g: { h: undefined },
      },
      { only: undefined },
      { '\u0000key"': 1.5, nested: { deeper: [{ x: null }] } },
    ];
    for (const result of results) expect(resultJson(result)).toBe(JSON.stringify(result));
  });

  it('answers a remembered array with its remembered text', () => {
    const items = [{ id: 'a' }, { id: 'b' }];
    rememberJson(items, '["remembered"]');
    expect(resultJson({ items, total: 2 })).toBe('{"items":["remembered"],"total":2}');
  });
});

describe('itemsWithinBudget', () => {
  it('keeps a page within the budget whole and answers the JSON it measured', () => {
    const items = Array.from({ length: 20 }, (_, index) => ({ id: `rsk_${index}`, name: 'é'.repeat(50) }));
    expect(itemsWithinBudget(items)).toBe(20);
    expect(resultJson({ items })).toBe(JSON.stringify({ items }));
  });

  it('cuts a page over the budget where the items themselves cross it', () => {
    // Each item 40% of the budget in non-ASCII characters: two fit, the third does not.
    const items = Array.from({ length: 5 }, (_, index) => ({
      id: `rsk_${index}`,
      name: 'é'.repeat(RESULT_TOKEN_BUDGET * 0.4),
    }));
    expect(itemsWithinBudget(items)).toBe(2);
  });

  it('near the budget, decides as item by item: the ASCII estimate rounds each item up', () => {
    // Items of about 200 ASCII characters: each counts ceil(length / 4) + 1 tokens.
    const make = (length: number) => Array.from({ length }, () => ({ t: 'a'.repeat(190) }));
    const perItem = (items: { t: string }[]) => Math.ceil(JSON.stringify(items[0]).length / 4) + 1;
    const fitting = Math.floor(RESULT_TOKEN_BUDGET / perItem(make(1)));
    expect(itemsWithinBudget(make(fitting))).toBe(fitting);
    expect(itemsWithinBudget(make(fitting + 1))).toBe(fitting);
  });
});
