/**
 * The policy file with one more `gitlab.shares.exempt` entry, its comments, order and every other
 * byte kept. The yaml Document API finds where the exempt list ends and renders the entry; the entry
 * is spliced in as text at that place, so the diff is the entry alone. Where the list is not a block
 * list with entries (absent, `[]`, a flow list), the whole document is written by the Document API
 * instead (comments and order kept, spacing normalised). Either way the result is parsed again and must
 * mean exactly the old file plus the entry, read as Warden reads a policy (POLICY_PARSE_OPTIONS: a
 * `%YAML 1.1` timestamp is its text, not a Date a rewrite would write back another way). The file's
 * line endings (CRLF) and byte order mark are kept: the Document API writes LF and drops the mark, and
 * a file changed on every line hides the one entry added from the merge request's reviewer.
 */
import { isDeepStrictEqual } from "node:util";
import { Document, isMap, isSeq, parseDocument, type DocumentOptions, type YAMLMap } from "yaml";
import { POLICY_PARSE_OPTIONS, type ExemptRequest } from "../../policy/index.ts";

export class PolicyEditError extends Error {
  override name = "PolicyEditError";
}

/** The entry as the policy spells it (lib/policy/schema.ts's exemption). */
export function exemptionEntry(request: ExemptRequest): Record<string, string> {
  return {
    project: request.project,
    ...(request.group !== undefined && { sharedWith: request.group }),
    ...(request.until !== undefined && { until: request.until }),
    reason: request.reason,
  };
}

export function withExemption(text: string, entry: Record<string, string>): string {
  const doc = parseDocument(text, POLICY_PARSE_OPTIONS);
  if (doc.errors.length > 0) throw new PolicyEditError("the policy file is not valid YAML");
  const shares = doc.getIn(["gitlab", "shares"], true);
  if (!isMap(shares)) throw new PolicyEditError("the policy has no gitlab.shares mapping to add an exemption to");
  const expected = doc.toJS() as { gitlab: { shares: { exempt?: unknown[] } } };
  expected.gitlab.shares.exempt = [...(expected.gitlab.shares.exempt ?? []), entry];
  const eol = /^[^\n]*\r\n/.test(text) ? "\r\n" : "\n";
  const spliced = splice(text, shares as YAMLMap, entry, doc.directives?.yaml.version, eol);
  if (spliced !== undefined && isDeepStrictEqual(parseDocument(spliced, POLICY_PARSE_OPTIONS).toJS(), expected)) return spliced;
  const exempt = shares.get("exempt", true);
  if (isSeq(exempt)) exempt.items.push(doc.createNode(entry));
  else shares.set("exempt", doc.createNode([entry]));
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const rewritten = bom + doc.toString({ flowCollectionPadding: false }).replace(/\n/g, eol);
  if (!isDeepStrictEqual(parseDocument(rewritten, POLICY_PARSE_OPTIONS).toJS(), expected)) throw new PolicyEditError("the exemption could not be added without changing the rest of the policy");
  return rewritten;
}

/** The entry inserted after the last item of a block `exempt` list, at its indentation; undefined where there is none. */
function splice(text: string, shares: YAMLMap, entry: Record<string, string>, version: DocumentOptions["version"], eol: string): string | undefined {
  const exempt = shares.get("exempt", true);
  if (!isSeq(exempt) || exempt.flow || exempt.items.length === 0 || !exempt.range) return undefined;
  const start = exempt.range[0];
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const indent = text.slice(lineStart, start);
  if (!/^ *$/.test(indent)) return undefined;
  const last = exempt.items.at(-1) as { range?: [number, number, number] };
  if (!last.range) return undefined;
  // After the line the last item ends on (its trailing comment included). The entry on lines of its own: a long reason is not folded (lineWidth 0), so the diff shows it whole.
  let end = text.indexOf("\n", Math.max(last.range[1] - 1, 0));
  // And after the comment lines indented under that item (`# until …, once the audit ends`): they are its, not the entry's.
  const under = new RegExp(` {${indent.length + 1},}#[^\\n]*(\\n)?`, "y");
  while (end >= 0) {
    under.lastIndex = end + 1;
    const next = under.exec(text);
    if (!next) break;
    end = next[1] ? end + next[0].length : -1;
  }
  const at = end < 0 ? text.length : end + 1;
  // The line's own ending (CRLF in a file written on Windows), else the file's.
  const lineEnd = end > 0 && text[end - 1] === "\r" ? "\r\n" : end < 0 ? eol : "\n";
  // In the file's YAML version (`%YAML 1.1` reads a plain `no` as false): an entry read otherwise would send the file to a rewrite.
  const rendered = new Document([entry], { version }).toString({ lineWidth: 0 }).replace(/\n$/, "").split("\n").map((line) => `${indent}${line}${lineEnd}`).join("");
  return `${text.slice(0, at)}${end < 0 ? lineEnd : ""}${rendered}${text.slice(at)}`;
}

/** A unified diff of one changed region, with up to three lines of context: what a dry run shows. */
export function unifiedDiff(path: string, before: string, after: string): string {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const from = Math.max(0, head - 3);
  const context = (lines: string[]) => lines.map((l) => ` ${l}`);
  const hunk = [
    ...context(a.slice(from, head)),
    ...a.slice(head, a.length - tail).map((l) => `-${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+${l}`),
    ...context(a.slice(a.length - tail, Math.min(a.length, a.length - tail + 3))),
  ];
  const oldCount = a.length - tail - from + Math.min(3, tail);
  const newCount = b.length - tail - from + Math.min(3, tail);
  return [`--- a/${path}`, `+++ b/${path}`, `@@ -${from + 1},${oldCount} +${from + 1},${newCount} @@`, ...hunk].join("\n");
}
