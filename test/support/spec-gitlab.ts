/** The GitLab spec suites' setting: a recording simulator and Warden's client for it, closed after each test, and the lookups the rules share. */
import type { GitLabClient, GitLabClientOptions } from "../../lib/gitlab/index.ts";
import { createHttpClient, RateLimiterRegistry } from "../../lib/http/index.ts";
import { gitlabListing, type ListingOrder, type PageMeta } from "../../lib/paging/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabDataset, type GitLabSim, type GitLabSimOptions, type SimProject } from "../../sim/gitlab/index.ts";
import { gitlabClient } from "./spec.ts";
import { afterTest } from "./cleanup.ts";

export const enc = encodeURIComponent;
export const byId = (a: number, b: number): number => a - b;
/** The totals a page announced (its meta also holds the server's Date). */
export const totals = ({ total, totalPages }: PageMeta) => ({ total, totalPages });

export interface Setup {
  sim: GitLabSim;
  client: GitLabClient;
  dataset: GitLabDataset;
}

/** A recording simulator with a seeded organisation, and Warden's client for it. */
export async function gitlab(
  opts: Omit<GitLabSimOptions, "dataset"> & { projects?: number; dataset?: GitLabDataset } = {},
  clientOpts: Partial<GitLabClientOptions> = {},
): Promise<Setup> {
  const { projects = 300, dataset = generateOrganisation({ projects, seed: 11 }).dataset, ...simOpts } = opts;
  const sim = afterTest.add(await startGitLabSim({ recordRequests: true, ...simOpts, dataset }));
  return { sim, dataset, client: gitlabClient(sim.url, sim.token, clientOpts) };
}

/** An organisation whose groups and projects are all public (an open-source instance's): what an anonymous caller lists whole. */
export function publicOrganisation(projects: number): GitLabDataset {
  const { dataset } = generateOrganisation({ projects, seed: 11 });
  for (const item of [...dataset.groups, ...dataset.projects]) item.visibility = "public";
  return dataset;
}

/** A listing made the way Warden makes one, but by a caller without a token. */
export function anonymousListing<T extends { id: number }>(origin: string, path: string, order?: ListingOrder, perPage?: number) {
  const http = createHttpClient({ origin, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
  return gitlabListing<T>({ http, basePath: "/api/v4", path, route: `GET ${path}`, order, authenticated: false, perPage });
}

export const renamedOf = (dataset: GitLabDataset): SimProject => dataset.projects.find((p) => p.previous_paths.length > 0)!;
/** A project at least two namespaces deep (`acme/mobile/ios-client.12`), never renamed. */
export const deepProject = (dataset: GitLabDataset): SimProject =>
  dataset.projects.find((p) => p.path_with_namespace.split("/").length >= 3 && p.previous_paths.length === 0)!;
export const urlsOf = (sim: GitLabSim, prefix: string): string[] => sim.requests.filter((r) => r.url.startsWith(prefix)).map((r) => r.url);
