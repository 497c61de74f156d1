/**
 * The notices tests' world (test/jobs/notices/): two groups and a project on the GitLab simulator, a
 * notices project, jane (the adder) and root (Warden's token), a clock that follows each run's time,
 * and the enforce job run on it under onStray notify, its report validated.
 */
import { expect } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce, type AuditSink, type EnforceTarget } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { markedKey } from "../../lib/jobs/notices/marker.ts";
import { ACCESS, startGitLabSim, type GitLabDataset, type GitLabSim } from "../../sim/gitlab/index.ts";
import { notifyPolicy } from "./policies.ts";
import { validated } from "./report.ts";
import { afterTest } from "./cleanup.ts";

/** The simulator of the test running (a live binding: start() replaces it), closed after each test (test/support/cleanup.ts). */
export let sim: GitLabSim;

const DAY = 86_400_000;
/** The notices project's id. */
export const NOTICES = 200;
const group = (id: number, path: string, owners: string[]) =>
  ({ id, name: path, path, full_path: path, parent_id: null, visibility: "internal" as const, shared_with_groups: [], owners });
const project = (id: number, path: string, namespace_id: number) =>
  ({ id, name: path.split("/")[1]!, path: path.split("/")[1]!, path_with_namespace: path, namespace_id, shared_with_groups: [], default_branch: "main", branches: ["main"], archived: false, previous_paths: [] });

export function world(partners = "partners", janeName = "Jane Doe"): GitLabDataset {
  return {
    groups: [group(10, "acme", ["jane"]), group(20, partners, ["jane"]), group(40, "security", ["root"])],
    users: [{ id: 5, username: "jane", name: janeName, namespace_id: 105 }],
    projects: [project(100, "acme/app", 10), project(NOTICES, "security/access-notices", 40)],
  };
}

export const POLICY = notifyPolicy({ labels: "access-review" });

export const T0 = new Date("2026-11-29T09:00:00Z");
export const later = (days: number) => new Date(T0.getTime() + days * DAY);

/** The simulator's time: each run sets it to its own `now`, so the issues it opens are created then. */
let clockMs = T0.getTime();

/** Sets the simulator's time, for what a person does through the API (gitlabCall) at `at`. */
export function setClock(at: Date): void {
  clockMs = at.getTime();
}

/** Starts the simulator at T0; jane shares acme/app and her group acme with partners. */
export async function start(dataset = world()) {
  clockMs = T0.getTime();
  sim = afterTest.add(await startGitLabSim({ dataset, tokens: { root: { admin: true }, jane: { admin: false, username: "jane" } }, recordRequests: true, clock: () => clockMs }));
  // Jane shares the project and her group acme with partners: two stray shares, attributed to her.
  for (const path of ["/projects/100/share", "/groups/10/share"]) await gitlabCall("jane", "POST", path, { group_id: 20, group_access: 30 }, 201);
}

/** A request as `token`'s user (jane, the adder; root, Warden's token), expecting `status`. */
export async function gitlabCall(token: string, method: string, path: string, body?: unknown, status = 200): Promise<unknown> {
  const res = await fetch(`${sim.url}/api/v4${path}`, { method, headers: { "private-token": token, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  expect(res.status).toBe(status);
  return res.status === 204 ? undefined : res.json();
}

/** An enforce run as Warden (root), at `now` (the simulator's time too), its report validated. */
export function run(opts: { apply?: boolean; now?: Date; policy?: string; targets?: EnforceTarget[]; audit?: AuditSink } = {}) {
  const gitlab = new GitLabClient({ url: sim.url, token: "root", limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  const policy = parsePolicy(opts.policy ?? POLICY, "warden.yaml");
  clockMs = (opts.now ?? T0).getTime();
  return validated(enforce({ gitlab, policy, apply: opts.apply ?? false, now: opts.now ?? T0, ...(opts.targets && { targets: opts.targets }), ...(opts.audit && { audit: opts.audit }) }));
}

export const issues = () => sim.work.issuesOf(NOTICES);
export const open = () => issues().filter((i) => i.state === "opened");
export const writes = () => sim.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.url.split("?")[0]}`);
export const deletes = () => writes().filter((w) => w.startsWith("DELETE"));

/** `dataset` with jane only a Guest of the notices project: she may close and reopen the issues assigned to her, not relabel them. */
export function guestWorld(dataset = world()): GitLabDataset {
  dataset.projects.find((p) => p.id === NOTICES)!.members = { jane: ACCESS.guest };
  return dataset;
}

/** The notices (Warden's, open or closed) of the share `key` ("project:100:group:20"), oldest first. */
export const noticesOf = (key: string) => issues().filter((i) => markedKey(i.description) === key).sort((a, b) => a.iid - b.iid);

/** A person (`token`'s user) closing or reopening notice `iid` at `at`. */
export async function setIssueState(token: string, iid: number, at: Date, event: "close" | "reopen" = "close"): Promise<void> {
  setClock(at);
  await gitlabCall(token, "PUT", `/projects/${NOTICES}/issues/${iid}`, { state_event: event });
}
