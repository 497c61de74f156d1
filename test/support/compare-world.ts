/**
 * A small organisation, built by hand, and a policy change with one share for each way a change can
 * alter a run (enforce --compare-policy-ref): the shares BASE and PROPOSED judge otherwise, named
 * in EXPECTED, and strays both judge alike, which a comparison must not list.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACCESS, startGitLabSim, type GitLabDataset, type GitLabSim, type SimGroup, type SimProject } from "../../sim/gitlab/index.ts";

/** A group name a hostile user could give: Markdown, HTML, a mention, a reference, the note's own marker. */
export const HOSTILE_GROUP = "evil/@all [x](javascript:alert(1)) <b>~bold</b> | #1 <!-- warden:policy-comparison -->";

const GROUPS: [id: number, path: string][] = [
  [1, "acme"], [2, "acme/app"], [3, "acme/legacy"], [4, "partners"], [5, "partners/x"], [6, "outside"], [7, "strangers"], [8, "security"], [9, "evil"], [10, HOSTILE_GROUP],
];

const group = ([id, path]: [number, string]): SimGroup => ({
  id, name: path.split("/").pop()!, path: path.split("/").pop()!, full_path: path,
  parent_id: path.includes("/") ? GROUPS.find(([, p]) => p === path.slice(0, path.indexOf("/")))![0] : null,
  visibility: "private", shared_with_groups: [],
});

const share = (groupId: number, level: number = ACCESS.developer) => {
  const [, path] = GROUPS.find(([id]) => id === groupId)!;
  return { group_id: groupId, group_name: path.split("/").pop()!, group_full_path: path, group_access_level: level, expires_at: null };
};

const project = (id: number, path: string, namespaceId: number, shares: ReturnType<typeof share>[]): SimProject => ({
  id, name: path.split("/").pop()!, path: path.split("/").pop()!, path_with_namespace: path, namespace_id: namespaceId,
  shared_with_groups: shares, default_branch: "main", branches: ["main"], archived: false, previous_paths: [],
});

export const POLICY_PROJECT = "security/policies";
export const MR_IID = 7;

export function compareWorld(): GitLabDataset {
  const groups = GROUPS.map(group);
  // acme/app shares itself with outside: stray under BASE, allowed under PROPOSED (a group share).
  groups.find((g) => g.id === 2)!.shared_with_groups.push(share(6));
  return {
    groups,
    users: [{ id: 50, username: "mallory", name: "Mallory", namespace_id: 5000 }],
    projects: [
      project(10, "acme/app/api", 2, [share(5), share(6), share(7), share(10)]),
      project(11, "acme/legacy/old", 3, [share(2), share(5)]),
      project(12, "acme/app/web", 2, [share(3), share(7, ACCESS.maintainer)]),
      project(20, POLICY_PROJECT, 8, []),
    ],
    mergeRequests: [{ project_id: 20, iid: MR_IID, title: "Tighten partner access" }],
  };
}

export const BASE = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - group: "partners/x"
        projects: ["acme/app/**"]
        maxAccess: developer
      - group: "evil/**"
    exempt:
      - project: "acme/legacy/**"
  guard: { unmatchedRules: warn }
`;

/** Drops partners/x and evil/**, allows outside, moves the exemption from acme/legacy/** to acme/app/web. */
export const PROPOSED = `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - group: "outside"
    exempt:
      - project: "acme/app/web"
  guard: { unmatchedRules: warn }
`;

/** `kind subject ← group` of each share, by section. Unchanged strays (api ← strangers) are in none. */
export const EXPECTED = {
  // allowed → stray; allowed → stray (the hostile name); exempt → stray (the exemption lapses into a removal).
  newlyRemoved: ["project acme/app/api ← partners/x", `project acme/app/api ← ${HOSTILE_GROUP}`, "project acme/legacy/old ← partners/x"],
  // stray → allowed (group share and project share); stray → exempt (an exemption newly applies to a stray).
  noLongerRemoved: ["group acme/app ← outside", "project acme/app/api ← outside", "project acme/app/web ← strangers"],
  // exempt → allowed (lapses); allowed → exempt (newly applies).
  exemptionChanged: ["project acme/legacy/old ← acme/app", "project acme/app/web ← acme/legacy"],
};

export const shareName = (a: { kind: string; project?: string; sharedGroup?: string; group: string }) => `${a.kind} ${a.kind === "project" ? a.project : a.sharedGroup} ← ${a.group}`;

/**
 * The world a merge request pipeline runs in: a simulator (recording requests) whose policy project
 * holds BASE on main, and a checkout (CI_PROJECT_DIR) holding PROPOSED. The caller closes `sim`.
 */
export async function startCompareWorld(): Promise<{ sim: GitLabSim; repo: SimProject; checkout: string; policy: string }> {
  const sim = await startGitLabSim({ dataset: compareWorld(), recordRequests: true });
  const repo = sim.dataset.projects.find((p) => p.path_with_namespace === POLICY_PROJECT)!;
  sim.repositories.commit(repo, { "warden.yaml": BASE });
  const checkout = mkdtempSync(join(tmpdir(), "warden-compare-"));
  const policy = join(checkout, "warden.yaml");
  writeFileSync(policy, PROPOSED);
  return { sim, repo, checkout, policy };
}
