/** The GitLab simulator's tests' requests, sent as a client sends them: tokens, JSON, Link headers, one simulator per test. */
import { expect } from "vitest";
import { startGitLabSim } from "../../sim/gitlab/index.ts";
import type { GitLabDataset, GitLabSim, GitLabSimOptions, SimProject } from "../../sim/gitlab/index.ts";

export const ADMIN = "glpat-sim-admin";
export const READER = "glpat-sim-reader";
export const TOKENS = { [ADMIN]: { admin: true }, [READER]: { admin: false, username: "alice" } };

/** `path` is appended to /api/v4 as is: encoding is the caller's business, as for a real client. */
export function api(sim: GitLabSim, path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const { token = sim.token, headers, ...rest } = init;
  return fetch(`${sim.url}/api/v4${path}`, {
    redirect: "manual",
    ...rest,
    headers: { ...(token === null ? {} : { "PRIVATE-TOKEN": token }), ...(headers as Record<string, string>) },
  });
}

export const getJson = async <T = any>(sim: GitLabSim, path: string, token?: string | null): Promise<T> => {
  const res = await api(sim, path, { token });
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  return json<T>(res);
};

/** rel → url of a Link header. */
export function links(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (res.headers.get("link") ?? "").matchAll(/<([^>]+)>; rel="(\w+)"/g)) out[m[2]!] = m[1]!;
  return out;
}

export const json = async <T = any>(res: Response): Promise<T> => (await res.json()) as T;
export const ids = (items: { id: number }[]): number[] => items.map((p) => p.id);
export const enc = encodeURIComponent;
export const renamedOf = (dataset: GitLabDataset): SimProject => dataset.projects.find((p) => p.previous_paths.length > 0)!;
export const sharedProject = (dataset: GitLabDataset, taken: Set<number>): SimProject => {
  const project = dataset.projects.find((p) => p.shared_with_groups.length > 0 && !taken.has(p.id))!;
  taken.add(project.id);
  return project;
};

export async function withSim(opts: GitLabSimOptions, run: (sim: GitLabSim) => Promise<void>): Promise<void> {
  const sim = await startGitLabSim(opts);
  try {
    await run(sim);
  } finally {
    await sim.close();
  }
}
