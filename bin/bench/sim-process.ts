/**
 * Hosts the GitLab simulator for one benchmark run in a process of its own, so its dataset (100,000
 * projects) is not counted in the memory of the tool being measured. Driven over IPC by sim-host.ts.
 */
import { generateOrganisation, startGitLabSim, type RateLimitRule, type ShareIntent, type SimGroup, type SimProject } from "../../sim/gitlab/index.ts";
import type { TreeShape } from "../../sim/gitlab/generate-tree.ts";
import type { TokenBucketOptions } from "../../sim/gitlab/token-bucket.ts";
import { Store } from "../../sim/gitlab/store.ts";
import { auditBound } from "./audit-bound.ts";
import { listingRequests } from "./listing-bound.ts";
import { addNoticesProject, markerLine, type NoticeCount } from "./notices-world.ts";

export interface SimConfig {
  projects: number;
  latencyMs: number;
  rateLimits: RateLimitRule[];
  /** An uneven tree (generate-tree.ts); default: about one subgroup per 50 projects. */
  tree?: TreeShape;
  /** A front proxy's token bucket answering bare 429s. */
  tokenBucket?: TokenBucketOptions;
  /** A notices project (notices-world.ts), outside the scope, for a policy under onStray notify. */
  noticesProject?: boolean;
}

/** What the simulated organisation asks of a run at the least. */
export interface SimShape {
  url: string;
  token: string;
  inScope: number;
  /** Groups in scope, acme included. */
  groups: number;
  strays: number;
  /** Projects with a stray project share: a plan older than 60 s re-reads each once before its removals. */
  strayProjects: number;
  /** The project-listing requests Warden's examination sends (listing-bound.ts). */
  listings: number;
  /** What attributing the strays must read (audit-bound.ts): audit-event pages, the rounds they take at the least, and authors looked up. */
  auditPages: number;
  auditRounds: number;
  authors: number;
}

/**
 * The round trips after the examination's opening before a stray can be seen: none for one the scope
 * group's detail carries (a share of the scope group itself, or of one of the 100 own projects its detail
 * embeds, the newest: sim/gitlab/serialize.ts), one for any other (its group's detail, or a listing, goes
 * out once the opening's listing of subgroups, or its sample, is answered).
 */
function seenAfter(all: readonly SimProject[], root: SimGroup): (stray: ShareIntent) => number {
  const embedded = new Set(all.filter((p) => p.namespace_id === root.id).toSorted((a, b) => b.id - a.id).slice(0, 100).map((p) => p.id));
  return (stray) => (stray.kind === "project" ? (embedded.has(stray.projectId) ? 0 : 1) : stray.groupId === root.id ? 0 : 1);
}

type Request = { type: "start"; config: SimConfig } | { type: "counters" } | { type: "remaining-strays" } | { type: "notices" };

let state: { sim: Awaited<ReturnType<typeof startGitLabSim>>; strays: Set<string>; noticesId?: number; closedPages: number } | undefined;

// The bench stopped (a signal, a crash): nothing will ask this world anything, and its port and memory are wanted back.
process.on("disconnect", () => process.exit(0));

process.on("message", async (msg: Request) => {
  if (msg.type === "start") {
    // Who made each share, as GitLab records it: most recently, some long ago, some never (generate-audit-events.ts).
    const now = new Date();
    const { dataset, intents } = generateOrganisation({ projects: msg.config.projects, seed: 1, now, shareHistory: true, ...(msg.config.tree ? { tree: msg.config.tree } : {}) });
    const noticesId = msg.config.noticesProject ? addNoticesProject(dataset) : undefined;
    const sim = await startGitLabSim({ dataset, latencyMs: msg.config.latencyMs, rateLimits: msg.config.rateLimits, tokenBucket: msg.config.tokenBucket });
    state = { sim, strays: new Set(intents.filter((i) => i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`)), ...(noticesId ? { noticesId } : {}), closedPages: 0 };
    // The closed notices' listing is told from the open ones' by its query: the route is the same.
    if (noticesId) {
      sim.beforeAnswer(({ route, url }) => {
        if (route === "GET /projects/:id/issues" && url.searchParams.get("state") === "closed") state!.closedPages++;
      });
    }
    const inScope = (path: string) => path === "acme" || path.startsWith("acme/");
    const [projects, groups] = [dataset.projects.filter((p) => inScope(p.path_with_namespace)), dataset.groups.filter((g) => inScope(g.full_path))];
    // The simulator's own visibility rule; its indexes built only where a listing is large enough to be split by visibility.
    let store: Store | undefined;
    const shape: SimShape = {
      url: sim.url,
      token: sim.token,
      inScope: projects.length,
      groups: groups.length,
      strays: state.strays.size,
      strayProjects: new Set(intents.flatMap((i) => (i.intent === "stray" && i.kind === "project" ? [i.projectId] : []))).size,
      listings: listingRequests(groups, projects, (project) => (store ??= new Store(dataset)).visibilityOf(project)),
      ...auditBound(dataset.auditEvents ?? [], intents.filter((i) => i.intent === "stray"), now, seenAfter(projects, groups.find((g) => g.full_path === "acme")!)),
    };
    process.send!(shape);
  } else if (msg.type === "counters") {
    process.send!(state!.sim.counters);
  } else if (msg.type === "notices") {
    const open = state!.sim.work.issuesOf(state!.noticesId!).filter((i) => i.state === "opened");
    process.send!({ open: open.length, shares: new Set(open.map((i) => markerLine(i.description))).size, closedPages: state!.closedPages } satisfies NoticeCount);
  } else {
    const left = state!.sim.dataset.projects.reduce((n, p) => n + p.shared_with_groups.filter((s) => state!.strays.has(`${p.id}:${s.group_id}`)).length, 0);
    process.send!(left);
  }
});
