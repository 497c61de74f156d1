/**
 * What every kind of row gives the benchmark: its measure, its table with the text that explains it,
 * and its targets. The entry (index.ts) runs the kinds in order; markdown.ts writes what they return.
 */
import type { Bench } from "./context.ts";
import type { Settings } from "./settings.ts";

export interface Target {
  target: string;
  met: boolean;
  measured: string;
}

export interface RowKind<Row> {
  /** The section's heading. */
  title: string;
  /** The key of its rows in --json. */
  key: string;
  /** Runs its rows; none when the flags leave the kind out. */
  measure(bench: Bench): Promise<Row[]>;
  /** Markdown before the table: what the rows do, with the settings they ran with. */
  about(settings: Settings): string;
  table(rows: Row[]): string;
  /** Markdown after the table: how to read its columns. */
  legend(rows: Row[], settings: Settings): string;
  targets(rows: Row[], settings: Settings): Target[];
}

/** One kind's measured rows. */
export interface Section<Row = unknown> {
  kind: RowKind<Row>;
  rows: Row[];
}

/**
 * A table's lines: the header, its alignment row, then one line of cells per row. A cell's "|" and line
 * breaks (an error's text may hold them) are the only characters that would break the table: those are escaped.
 */
export function table(header: string[], align: string, rows: string[][]): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\s*\n\s*/g, " ");
  return [`| ${header.join(" | ")} |`, align, ...rows.map((cells) => `| ${cells.map(cell).join(" | ")} |`)].join("\n");
}
