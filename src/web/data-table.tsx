// The one table of records the pages show: a line saying there is nothing when there is nothing, else a scrolling
// wrapper, an optional caption for screen readers, a header of column names and a row per item.
import type { Child } from 'hono/jsx';

export interface Column<Item> {
  /** The header's words; with `hiddenHeader`, read by screen readers only (an actions column). */
  header: string;
  hiddenHeader?: boolean;
  /** The cell of one item. */
  cell(item: Item): Child;
  /** A class on the column's header and cells (`wrap` lets long text wrap, `num` aligns numbers). */
  class?: string;
}

export function DataTable<Item>(props: {
  items: readonly Item[];
  columns: readonly Column<Item>[];
  /** What the page says instead of an empty table. */
  empty: string;
  /** Announced to screen readers before the table ("12 items"); shown too with `captionShown`. */
  caption?: string;
  captionShown?: boolean;
  /** The class of the empty line (`empty`, or `muted` where the page uses it). */
  emptyClass?: string;
}) {
  if (props.items.length === 0) return <p class={props.emptyClass ?? 'empty'}>{props.empty}</p>;
  return (
    <div class="table-wrap">
      <table>
        {props.caption && (
          <caption class={props.captionShown ? undefined : 'visually-hidden'}>{props.caption}</caption>
        )}
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" class={column.class}>
                {column.hiddenHeader ? <span class="visually-hidden">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.items.map((item) => (
            <tr>
              {props.columns.map((column) => (
                <td class={column.class}>{column.cell(item)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
