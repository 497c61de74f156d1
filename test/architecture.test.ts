/**
 * The import rules, read from the import lines themselves (the repository has no linter): no circle,
 * every lib layer imports only the layers below it, and every folder of functions/shared only the folders
 * before it, enforce's folder keeps its one-way rules (docs/architecture.md), the AWS SDK stays in
 * lib/aws and the front ends, bin/ never imports functions/, bin/ and functions/ reach lib/jobs only
 * through an index.ts, the folders of lib/jobs make no circle and reach each other only through their
 * public files, and no file in lib/ or functions/ outgrows 250 lines. And the tests' own house
 * (docs/testing.md): their folders mirror the source's, what they share lives in test/support/, and no
 * file in test/ outgrows 400 lines, and what they share registers no hook as it loads.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { expect, it } from "vitest";
import config from "../vitest.config.ts";

// Every folder of TypeScript, so a circle anywhere shows; the layer rules are about lib/ alone.
const ROOTS = ["lib", "functions", "bin", "test", "sim", "bench"].filter((root) => existsSync(root));
const files = ROOTS.flatMap((root) => readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts")).map((f) => join(root, f)));
// Static imports and re-exports, type-only included; an import list may span lines (it holds no ";").
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s*"(\.[^"]+)"/gm;
const graph = new Map(files.map((file) => [file, [...readFileSync(file, "utf8").matchAll(IMPORT)].map((m) => normalize(join(dirname(file), m[1]!)))]));
const imports = (from: RegExp) => [...graph].filter(([file]) => from.test(file)).flatMap(([file, to]) => to.map((target) => `${file} -> ${target}`));
const breaking = (from: RegExp, to: RegExp) => imports(from).filter((edge) => to.test(edge.split(" -> ")[1]!));

it("no import circle", () => {
  const state = new Map<string, "open" | "done">();
  const circles: string[] = [];
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === "done") return;
    if (state.get(file) === "open") return void circles.push([...path.slice(path.indexOf(file)), file].join(" -> "));
    state.set(file, "open");
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    state.set(file, "done");
  };
  for (const file of graph.keys()) visit(file, []);
  expect(circles).toEqual([]);
});

it("each lib layer imports only the layers below it; lib never imports functions/ or bin/", () => {
  const below: Record<string, string[]> = {
    redact: [],
    // The AWS SDK's clients both front ends use (the run-history bucket): a leaf no other layer imports.
    aws: [],
    policy: ["redact"],
    http: ["redact"],
    paging: ["http", "redact"],
    gitlab: ["paging", "http", "redact"],
    n8n: ["paging", "http", "redact"],
    // The front ends' settings: the policy file, and the services' addresses and credentials, by name.
    config: ["gitlab", "n8n", "paging", "http", "policy", "redact"],
    jobs: ["gitlab", "n8n", "paging", "http", "policy", "redact"],
  };
  const layer = (file: string) => /^(lib\/[a-z0-9]+|functions|bin)\//.exec(file)?.[1] ?? file;
  const upward = imports(/^lib\//).filter((edge) => {
    const [from, to] = edge.split(" -> ").map(layer) as [string, string];
    return from !== to && !below[from.slice(4)]!.includes(to.slice(4));
  });
  expect(upward).toEqual([]);
});

/**
 * functions/shared in one order, each folder importing only the folders before it: what a Lambda
 * invocation is (lambda), the deployment's settings and where Slack is (config), the tables (state),
 * a run and what follows it (runs), chat-ops (slack), GitLab's events (events), the durable Enforce
 * run (durable). docs/architecture.md states it.
 */
const FUNCTIONS_SHARED = ["lambda", "config", "state", "runs", "slack", "events", "durable"];

it("each functions/shared folder imports only the folders before it (lambda, config, state, runs, slack, events, durable)", () => {
  const folder = (file: string) => /^functions\/lib\/([a-z0-9-]+)\//.exec(file)?.[1];
  const upward = imports(/^functions\/lib\//).filter((edge) => {
    const [from, to] = edge.split(" -> ").map(folder) as [string, string | undefined];
    return to !== undefined && from !== to && !(FUNCTIONS_SHARED.indexOf(to) >= 0 && FUNCTIONS_SHARED.indexOf(to) < FUNCTIONS_SHARED.indexOf(from));
  });
  // A folder the order does not name is an edge to judge, not one to let pass.
  const unordered = [...new Set(files.map(folder).filter((f) => f !== undefined && !FUNCTIONS_SHARED.includes(f)))];
  expect({ upward, unordered }).toEqual({ upward: [], unordered: [] });
});

// Dynamic imports too: a front end loads a heavy module lazily (`await import("…")`), and that is an edge all the same.
const LAZY = /\bimport\(\s*"(\.[^"]+)"\s*\)/g;
const edges = (from: RegExp) =>
  [...graph].filter(([file]) => from.test(file)).flatMap(([file, to]) => [...to, ...[...readFileSync(file, "utf8").matchAll(LAZY)].map((m) => normalize(join(dirname(file), m[1]!)))].map((target) => `${file} -> ${target}`));

it("only lib/aws imports the AWS SDK in lib/, and lib/jobs reaches storage through its ports", () => {
  const sdk = files.filter((f) => /^lib\/(?!aws\/)/.test(f)).filter((f) => /\bfrom\s*"@aws(-sdk)?\/|\bimport\(\s*"@aws(-sdk)?\//.test(readFileSync(f, "utf8")));
  expect(sdk).toEqual([]);
});

/**
 * The CLI and the Lambdas are two front ends on lib/: what both need (the watch's poll, the run
 * history's reading, the S3 client) lives in lib/, so the CLI never loads a Lambda's module. bin/bench/
 * is exempt: it is the benchmark harness, not the CLI, and measures the Lambda handlers themselves
 * (functions/enforce.ts, events.ts, worker.ts) as they run deployed; it ships in no package.
 */
it("bin/ never imports functions/ (bin/bench, the benchmark of the handlers, aside)", () => {
  expect(edges(/^bin\/(?!bench\/)/).filter((edge) => edge.split(" -> ")[1]!.startsWith("functions/"))).toEqual([]);
});

/**
 * Each job folder's index.ts is its face: the front ends import lib/jobs through lib/jobs/index.ts or
 * a folder's index.ts (render/, report/, events/, watch/, …), never a file inside, so a folder may
 * rearrange its files without a front end noticing. Dynamic imports too; bin/bench is no exception.
 * escape.ts, the escaping of text people see, is a leaf of its own: chat-ops escapes what it quotes
 * and loads no job (test/functions/chatops-bundle.test.ts).
 */
it("bin/ and functions/ import lib/jobs only through lib/jobs/index.ts or a folder's index.ts", () => {
  const inside = edges(/^(bin|functions)\//).filter((edge) => {
    const to = edge.split(" -> ")[1]!;
    return to.startsWith("lib/jobs/") && !/^lib\/jobs\/(([a-z0-9-]+\/)?index|escape)\.ts$/.test(to);
  });
  expect(inside.map((edge) => `${edge.replace(" -> ", " imports ")}: import it from lib/jobs/index.ts or its folder's index.ts (export it there)`)).toEqual([]);
});

/**
 * Inside lib/jobs the same, with two more public files a job folder keeps for its neighbours: its
 * summary.ts (what it reports and takes) and view.ts (how it reads, for render/). shares/ is no job
 * but the leaf library of the plan every job stands on: its modules are all public.
 */
it("a lib/jobs folder reaches another only through its index.ts, summary.ts or view.ts (shares/ aside)", () => {
  const folder = (file: string) => /^lib\/jobs\/([^/]+)\//.exec(file)?.[1];
  const inside = imports(/^lib\/jobs\/[^/]+\//).filter((edge) => {
    const [from, to] = edge.split(" -> ") as [string, string];
    const [a, b] = [folder(from), folder(to)];
    return b !== undefined && b !== a && b !== "shares" && !new RegExp(`^lib/jobs/${b}/(index|summary|view)\\.ts$`).test(to);
  });
  expect(inside.map((edge) => `${edge.replace(" -> ", " imports ")}: export it from that folder's index.ts`)).toEqual([]);
});

it("enforce's folder imports one way (rules 1-7 of the layout)", () => {
  const examine = "lib/jobs/enforce/examine/";
  const contextMay = ["work", "slots", "ledger", "unexamined"].map((f) => `${examine}${f}.ts`).concat("lib/jobs/shares/plan.ts");
  const rules = {
    "1: shares/ imports neither enforce/ nor restore/": breaking(/^lib\/jobs\/shares\//, /^lib\/jobs\/(enforce|restore)\//),
    "2: work, slots, ledger and unexamined import nothing from examine/": breaking(/^lib\/jobs\/enforce\/examine\/(work|slots|ledger|unexamined)\.ts$/, /^lib\/jobs\/enforce\/examine\//),
    "2: context.ts imports only work, slots, ledger, unexamined and shares/plan": breaking(/^lib\/jobs\/enforce\/examine\/context\.ts$/, /^lib\/jobs\//).filter((edge) => !contextMay.includes(edge.split(" -> ")[1]!)),
    "3: nothing in examine/ imports the registry, the slice or the job": breaking(/^lib\/jobs\/enforce\/examine\//, /^lib\/jobs\/enforce\/(examine\/examiners|slice|index)\.ts$/),
    "4: projects/ never imports groups/": breaking(/^lib\/jobs\/enforce\/examine\/projects\//, /^lib\/jobs\/enforce\/examine\/groups\//),
    "5: apply/ and restore/ do not load the examination": breaking(/^lib\/jobs\/(apply|restore)\//, /^lib\/jobs\/enforce\/examine\//),
    "6: render/ imports views (and the reports' types, the comparison's words, the escaping), no engine": breaking(/^lib\/jobs\/render\//, /^lib\/jobs\/(?!(\w+\/)?view\.ts$|report\/|review\/summary\.ts$|render\/|shares\/comparison\.ts$|escape\.ts$)/),
    "7: apply/ and enforce/ do not import each other (both stand on shares/)": [...breaking(/^lib\/jobs\/apply\//, /^lib\/jobs\/enforce\//), ...breaking(/^lib\/jobs\/enforce\//, /^lib\/jobs\/apply\//)],
  };
  expect(Object.entries(rules).filter(([, edges]) => edges.length)).toEqual([]);
});

/**
 * lib/jobs as folders: each folder (and each file beside them) one node, an edge wherever one imports
 * the other. No circle among them either (render/ reads enforce's view, so enforce never imports render/).
 */
it("no circle between the folders of lib/jobs", () => {
  const node = (file: string) => /^lib\/jobs\/([^/]+)/.exec(file)?.[1];
  const folders = new Map<string, Set<string>>();
  for (const edge of imports(/^lib\/jobs\//)) {
    const [from, to] = edge.split(" -> ").map(node) as [string, string | undefined];
    if (to !== undefined && to !== from) folders.set(from, (folders.get(from) ?? new Set()).add(to));
  }
  const circles: string[] = [];
  const done = new Set<string>();
  const visit = (folder: string, path: string[]) => {
    if (path.includes(folder)) return void circles.push([...path.slice(path.indexOf(folder)), folder].join(" -> "));
    if (done.has(folder)) return;
    for (const next of folders.get(folder) ?? []) visit(next, [...path, folder]);
    done.add(folder);
  };
  for (const folder of folders.keys()) visit(folder, []);
  expect(circles).toEqual([]);
});

it("no file in lib/ or functions/ is over 250 lines", () => {
  const long = files.filter((f) => /^(lib|functions)\//.test(f)).filter((f) => readFileSync(f, "utf8").trimEnd().split("\n").length > 250);
  expect(long).toEqual([]);
});

const testFiles = readdirSync("test", { recursive: true, encoding: "utf8" }).map((f) => join("test", f)).filter((f) => statSync(f).isFile());

it("no file in test/ is over 400 lines", () => {
  const long = testFiles.filter((f) => f.endsWith(".ts")).filter((f) => readFileSync(f, "utf8").trimEnd().split("\n").length > 400);
  expect(long).toEqual([]);
});

it("test/ holds tests, and what they share in test/support/", () => {
  expect(testFiles.filter((f) => !f.endsWith(".test.ts") && !f.startsWith("test/support/"))).toEqual([]);
});

// A worker of the "shared" project (vitest.config.ts) loads a support module once for every file it runs:
// a hook the module registers as it loads holds in the first file alone. The setup files run for each file;
// test/support/sst/ serves only the config's tests, each in a process of its own.
it("test/support/ registers no vitest hook as a module loads: what it starts goes to test/support/cleanup.ts", () => {
  const setup = config.test?.setupFiles ?? [];
  const hooked = testFiles.filter((f) => f.startsWith("test/support/") && !f.startsWith("test/support/sst/") && !f.endsWith(".test.ts") && !setup.includes(f));
  expect(hooked.filter((f) => /^(?:before|after)(?:Each|All)\(/m.test(readFileSync(f, "utf8")))).toEqual([]);
});

/**
 * test/X/ tests lib/X/ (test/jobs/enforce/ tests lib/jobs/enforce/), or bin/X/, sim/X/ or functions/X/;
 * test/functions/F/ tests functions/shared/F/ (any one folder deep in functions/, whatever its name). The
 * spec suites (test/spec/, the contracts of docs/api-contract.md) and test/support/ mirror nothing.
 */
it("test/'s folders mirror the source's", () => {
  const folders = readdirSync("test", { recursive: true, encoding: "utf8" }).filter((f) => statSync(join("test", f)).isDirectory());
  const functionsFolders = readdirSync("functions", { recursive: true, encoding: "utf8" }).filter((f) => statSync(join("functions", f)).isDirectory());
  const mirrors = (folder: string) =>
    [join("lib", folder), join("bin", folder), folder].some((path) => existsSync(path) && statSync(path).isDirectory()) ||
    (folder.startsWith("functions/") && functionsFolders.some((f) => f.split("/").length === 2 && f.endsWith(`/${folder.slice("functions/".length)}`)));
  expect(folders.filter((f) => !/^(spec|support)(\/|$)/.test(f)).filter((f) => !mirrors(f))).toEqual([]);
});
