/**
 * README.md is the front door and docs/ the rest: every relative link in them resolves (the file is
 * there; an #anchor names a heading of it, as GitHub makes anchors), README stays short, and every
 * file of docs/ is reachable from it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { expect, it } from "vitest";

const pages = ["README.md", ...readdirSync("docs").filter((f) => f.endsWith(".md")).map((f) => join("docs", f))];

/** The anchors GitHub gives a page's headings (code fences left out). */
function anchors(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, "").replace(/ /g, "-")));
}

/** Every [text](target) outside code fences that points into the repository. */
function links(file: string): string[] {
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```/gm, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));
}

it("every relative link in README.md and docs/ resolves, anchors included", () => {
  const broken: string[] = [];
  for (const page of pages) {
    for (const target of links(page)) {
      const [path, anchor] = target.split("#") as [string, string | undefined];
      const file = path === "" ? page : normalize(join(dirname(page), path));
      if (!existsSync(file)) broken.push(`${page}: ${target} (no such file)`);
      else if (anchor !== undefined && file.endsWith(".md") && !anchors(file).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});

it("README.md is a front door of at most 250 lines that leads to every page of docs/", () => {
  const readme = readFileSync("README.md", "utf8");
  expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(250);
  const linked = new Set(links("README.md").map((target) => normalize(target.split("#")[0]!)));
  expect(pages.filter((page) => page !== "README.md" && !linked.has(page))).toEqual([]);
});
