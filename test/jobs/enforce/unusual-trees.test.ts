/**
 * Worlds unlike the simulator's generated organisation, each run three ways (an administrator's token with
 * details carrying the projects, one with details without them, a plain Owner's token), whole and in steps:
 * the dry run plans exactly the strays computed from the dataset, complete, sending only GETs. Under POLICY
 * (scope acme, allow acme/**), every share of a project or group at or below acme (whole segments, any case)
 * with a group not at or below acme is stray; nothing else is. (The trees10 review found these sound.)
 */
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../../lib/policy/index.ts";
import type { GitLabDataset, GitLabSimOptions, SimGroup, SimProject } from "../../../sim/gitlab/index.ts";
import { run, sim, startSim } from "../../support/enforce-world.ts";
import { ACME_ONLY } from "../../support/policies.ts";
import { actionKeys } from "../../support/share-keys.ts";
import { recordingSteps } from "../../support/steps.ts";
import { shareWith, simGroup, simProject } from "../../support/tiny-world.ts";

const POLICY = parsePolicy(ACME_ONLY, "test.yaml");

const under = (path: string) => path.toLowerCase() === "acme" || path.toLowerCase().startsWith("acme/");

/** The strays under POLICY, as "p<project>:<group>" and "g<group>:<group>" keys, sorted. */
function truth(dataset: GitLabDataset): string[] {
  const keys: string[] = [];
  for (const p of dataset.projects) if (under(p.path_with_namespace)) for (const s of p.shared_with_groups) if (!under(s.group_full_path)) keys.push(`p${p.id}:${s.group_id}`);
  for (const g of dataset.groups) if (under(g.full_path)) for (const s of g.shared_with_groups) if (!under(s.group_full_path)) keys.push(`g${g.id}:${s.group_id}`);
  return keys.sort();
}

/** A group builder with ids from 10 on, parents before children. */
function groups() {
  const all: SimGroup[] = [];
  const add = (fullPath: string, owners?: string[]): SimGroup => {
    const parentPath = fullPath.includes("/") ? fullPath.slice(0, fullPath.lastIndexOf("/")) : null;
    const parent = parentPath === null ? undefined : all.find((g) => g.full_path === parentPath);
    if (parentPath !== null && !parent) throw new Error(`no parent for ${fullPath}`);
    const group: SimGroup = { ...simGroup(10 + all.length, fullPath, parent?.id ?? null, "internal"), ...(owners ? { owners } : {}) };
    all.push(group);
    return group;
  };
  return { all, add };
}

let nextProject = 1000;
const project = (namespace: SimGroup, path: string, shares: SimGroup[] = [], extra: Partial<SimProject> = {}): SimProject => ({ ...simProject(nextProject++, namespace, path, shares.map((g) => shareWith(g, 30))), ...extra });

const share = (from: SimGroup, to: SimGroup) => void from.shared_with_groups.push(shareWith(to, 30));

const MODES: [string, Partial<GitLabSimOptions>, { token?: string }][] = [
  ["admin, details with projects", {}, {}],
  ["admin, details without projects", { detailProjects: false }, {}],
  ["owner (plain user)", { tokens: { "glpat-sim-admin": { admin: true }, "glpat-owner": { admin: false, username: "owner" } } }, { token: "glpat-owner" }],
];

function prefixWorld(): GitLabDataset {
  const g = groups();
  const acme = g.add("acme", ["owner"]);
  const outs = ["acme-x", "ACME-X2", "acme.io", "acme_x", "acmex", "Acme-Ext"].map((p) => g.add(p));
  const sub = g.add("acme/Web.Team");
  const sub2 = g.add("acme/data_science");
  const projects = [
    project(acme, "a", [outs[0]!, sub]),
    project(sub, "b.c", [outs[1]!, outs[2]!]),
    project(sub2, "d_e", [outs[3]!, acme]),
    ...outs.map((o, i) => project(o, `p${i}`, [outs[(i + 1) % outs.length]!])),
  ];
  share(sub, outs[4]!);
  share(sub2, acme);
  share(outs[0]!, outs[1]!);
  return { groups: g.all, users: [], projects };
}

function deepWorld(levels: number, perLevel: number, bottom: number): GitLabDataset {
  const g = groups();
  const out = g.add("outsider");
  let path = "acme";
  const chain = [g.add(path, ["owner"])];
  for (let i = 1; i < levels; i++) chain.push(g.add((path = `${path}/l${i}`)));
  const projects = chain.flatMap((grp, level) => Array.from({ length: level === chain.length - 1 ? bottom : perLevel }, (_, i) => project(grp, `p${i}`, i % 37 === 0 ? [out] : [])));
  share(chain[levels - 1]!, out);
  share(chain[5]!, out);
  return { groups: g.all, users: [], projects };
}

function bigGroupWorld(): GitLabDataset {
  const g = groups();
  const out = g.add("outsider");
  const acme = g.add("acme", ["owner"]);
  const big = g.add("acme/big");
  const subs = Array.from({ length: 12 }, (_, i) => g.add(`acme/big/s${i}`));
  const projects = [
    // Old projects of acme/big first (low ids), strays among them.
    ...Array.from({ length: 350 }, (_, i) => project(big, `old${i}`, i % 50 === 3 ? [out] : [])),
    ...subs.flatMap((s, j) => Array.from({ length: 30 + j * 10 }, (_, i) => project(s, `q${i}`, i % 41 === 7 ? [out] : []))),
    ...Array.from({ length: 120 }, (_, i) => project(acme, `r${i}`, i === 0 || i === 119 ? [out] : [])),
  ];
  return { groups: g.all, users: [], projects };
}

function userNamespaceWorld(): GitLabDataset {
  const g = groups();
  const acme = g.add("acme", ["owner"]);
  const dev = g.add("acme/dev");
  const out = g.add("outsider");
  // A user's namespace (users[0]'s), not a group of the dataset.
  const alice = simGroup(5000, "alice", null);
  const projects = [project(alice, "tool", [dev, out], { visibility: "private" }), project(dev, "x", [out]), project(acme, "y", [])];
  return { groups: g.all, users: [{ id: 77, username: "alice", name: "Alice", namespace_id: 5000 }], projects };
}

function archivedWorld(): GitLabDataset {
  const g = groups();
  const acme = g.add("acme", ["owner"]);
  const out = g.add("outsider");
  const projects = [project(acme, "arch", [out], { archived: true }), project(acme, "del-deletion_scheduled-9", [out])];
  return { groups: g.all, users: [], projects };
}

function emptyWorld(): GitLabDataset {
  const g = groups();
  const acme = g.add("acme", ["owner"]);
  const a = g.add("acme/a");
  const out = g.add("outsider");
  share(a, out);
  share(acme, acme);
  share(a, acme);
  return { groups: g.all, users: [], projects: [] };
}

const WORLDS: [string, () => GitLabDataset][] = [
  ["prefix paths", prefixWorld],
  ["20 levels deep", () => deepWorld(20, 30, 260)],
  ["a group of 350 projects with subgroups", bigGroupWorld],
  ["user namespaces", userNamespaceWorld],
  ["archived and pending deletion", archivedWorld],
  ["empty scope", emptyWorld],
];

describe.each(MODES)("unusual trees, %s", (_mode, simOpts, runOpts) => {
  it.each(WORLDS)("%s: the dry run plans exactly the strays, complete", async (_w, world) => {
    const dataset = world();
    const expected = truth(dataset);
    await startSim({ dataset, ...simOpts, recordRequests: true });
    const report = await run({ policy: POLICY, ...runOpts });
    expect(actionKeys(report.actions)).toEqual(expected);
    expect(report.summary.complete).toBe(true);
    expect(Object.keys(sim.counters.byRoute).filter((r) => !r.startsWith("GET "))).toEqual([]);
  });

  it.each(WORLDS)("%s: in steps, the same plan", async (_w, world) => {
    const dataset = world();
    await startSim({ dataset, ...simOpts });
    const report = await run({ policy: POLICY, ...runOpts }, recordingSteps({ sliceMs: 3, perStep: 5 }));
    expect(actionKeys(report.actions)).toEqual(truth(dataset));
    expect(report.summary.complete).toBe(true);
  });
});
