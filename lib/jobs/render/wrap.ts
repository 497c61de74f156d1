/** Lines wrapped to a terminal's width, at spaces, continuing under the line's own indent. */
import { stripVTControlCharacters } from "node:util";

/** Continuation lines are indented this much further than the line they continue. */
const HANGING = 4;

/** `width` undefined (not a terminal): unchanged. A word longer than the width is left whole, never cut. */
export function wrapLines(text: string, width: number | undefined): string {
  if (width === undefined || width < 20) return text;
  return text.split("\n").flatMap((line) => wrapLine(line, width)).join("\n");
}

function wrapLine(line: string, width: number): string[] {
  const visible = (s: string) => stripVTControlCharacters(s).length;
  if (visible(line) <= width) return [line];
  const indent = /^ */.exec(stripVTControlCharacters(line))![0].length;
  const hanging = " ".repeat(Math.min(indent + HANGING, Math.floor(width / 2)));
  // Words with the spaces before each (a table row's padding stays where the line is not broken).
  const words = line.slice(indent).match(/ *[^ ]+/g) ?? [];
  const lines: string[] = [];
  let current = " ".repeat(indent);
  for (const word of words) {
    const bare = word.trimStart();
    if (visible(current) + visible(word) > width && current.trim() !== "") {
      lines.push(current);
      current = hanging + bare;
    } else current += word;
  }
  lines.push(current);
  return lines;
}
