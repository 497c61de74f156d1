/**
 * Hosts the GitLab simulator for one benchmark run in a process of its own, so its dataset (100,000
 * projects) is not counted in the memory of the tool being measured. Driven over IPC by sim-host.ts.
 */
import { generateOrganisation, startGitLabSim, type RateLimitRule } from "../../test/sim/gitlab/index.ts";
import { PARTITION_ABOVE } from "../../lib/jobs/enforce.ts";

export interface SimConfig {
  projects: number;
  latencyMs: number;
  rateLimits: RateLimitRule[];
}

/** What the simulated organisation needs at the least, and how Warden will split it. */
export interface SimShape {
  url: string;
  token: string;
  inScope: number;
  strays: number;
  /** Pages of each partition Warden lists in parallel (one entry when the scope group is not split). */
  partitionPages: number[];
}

type Request = { type: "start"; config: SimConfig } | { type: "counters" } | { type: "remaining-strays" };

const pages = (n: number) => Math.max(1, Math.ceil(n / 100));
let state: { sim: Awaited<ReturnType<typeof startGitLabSim>>; strays: Set<string> } | undefined;

process.on("message", async (msg: Request) => {
  if (msg.type === "start") {
    const { dataset, intents } = generateOrganisation({ projects: msg.config.projects, seed: 1 });
    const sim = await startGitLabSim({ dataset, latencyMs: msg.config.latencyMs, rateLimits: msg.config.rateLimits });
    state = { sim, strays: new Set(intents.filter((i) => i.intent === "stray").map((i) => `${i.projectId}:${i.groupId}`)) };
    const under = (path: string) => dataset.projects.filter((p) => p.path_with_namespace.startsWith(`${path}/`)).length;
    const acme = dataset.groups.find((g) => g.full_path === "acme")!;
    const inScope = under("acme");
    const partitionPages =
      inScope <= PARTITION_ABOVE
        ? [pages(inScope)]
        : [pages(dataset.projects.filter((p) => p.namespace_id === acme.id).length), ...dataset.groups.filter((g) => g.parent_id === acme.id).map((g) => pages(under(g.full_path)))];
    const shape: SimShape = { url: sim.url, token: sim.token, inScope, strays: state.strays.size, partitionPages };
    process.send!(shape);
  } else if (msg.type === "counters") {
    process.send!(state!.sim.counters);
  } else {
    const left = state!.sim.dataset.projects.reduce((n, p) => n + p.shared_with_groups.filter((s) => state!.strays.has(`${p.id}:${s.group_id}`)).length, 0);
    process.send!(left);
  }
});
