/**
 * Audit lines name the GitLab they were written on (`gitlabUrl`), as a report does: `--audit-log FILE`
 * is appended to by every run given it, so one file (a shared runner's, a CI cache) can hold a staging
 * run's removals beside production's, and restored against production the staging lines' ids name other
 * projects and groups there: restore would re-create shares between them that production never had.
 */
import { describe, expect, it } from "vitest";
import { GitLabClient } from "../../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../../lib/http/index.ts";
import { enforce, parseRestoreText, restore, RestoreInputError } from "../../../lib/jobs/index.ts";
import { parsePolicy } from "../../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../../sim/gitlab/index.ts";
import { afterTest } from "../../support/cleanup.ts";
import { EVERYTHING_STRAY, standardPolicy } from "../../support/policies.ts";

const client = (sim: GitLabSim) => new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
const shares = (sim: GitLabSim) => new Set(sim.dataset.projects.flatMap((p) => p.shared_with_groups.map((s) => `project:${p.id}:${s.group_id}`)));
const posts = (sim: GitLabSim) => (sim.counters.byRoute["POST /projects/:id/share"] ?? 0) + (sim.counters.byRoute["POST /groups/:id/share"] ?? 0);

describe("audit lines from another GitLab", () => {
  it("a staging run's audit lines, restored against production, create nothing there (refused as a report from elsewhere is)", async () => {
    const staging = afterTest.add(await startGitLabSim({ dataset: generateOrganisation({ projects: 120, seed: 11 }).dataset }));
    const production = afterTest.add(await startGitLabSim({ dataset: generateOrganisation({ projects: 120, seed: 23 }).dataset }));

    // The staging run under a bad policy, its audit lines as the CLI appends them to --audit-log.
    const lines: string[] = [];
    const audit = { info: (message: string, fields: Record<string, unknown>) => lines.push(JSON.stringify({ level: "INFO", message, ...fields, timestamp: new Date().toISOString() })) };
    const removal = await enforce({ gitlab: client(staging), policy: parsePolicy(EVERYTHING_STRAY, "staging.yaml"), apply: true, audit });
    expect(removal.summary.removed).toBeGreaterThan(0);

    // The same report is refused on production, before anything is read.
    const fromReport = parseRestoreText(JSON.stringify(removal));
    await expect(restore({ gitlab: client(production), policy: parsePolicy(standardPolicy(), "prod.yaml"), input: fromReport, apply: true })).rejects.toBeInstanceOf(RestoreInputError);
    expect(production.counters.requests).toBe(0);

    // Nor are its audit lines, which name the GitLab they were written on.
    const before = shares(production);
    const input = parseRestoreText(lines.join("\n"));
    const restored = await restore({ gitlab: client(production), policy: parsePolicy(standardPolicy(), "prod.yaml"), input, apply: true }).catch((err: unknown) => err);
    const created = [...shares(production)].filter((s) => !before.has(s));
    expect({ created: created.length, posts: posts(production) }).toEqual({ created: 0, posts: 0 });
    expect(restored).toBeInstanceOf(RestoreInputError);
  });

  it("lines of two GitLabs in one file are refused before any request; lines an earlier Warden wrote (no gitlabUrl) are restored as before", async () => {
    const line = (fields: Record<string, unknown>) => JSON.stringify({ message: "remove-share", kind: "project", projectId: 1, project: "acme/app", groupId: 2, group: "partners", accessLevel: 30, expiresAt: null, outcome: "done", ...fields });
    expect(() => parseRestoreText([line({ gitlabUrl: "https://staging.example.com" }), line({ gitlabUrl: "https://gitlab.example.com", projectId: 3 })].join("\n"))).toThrow(
      /the audit lines were written on more than one GitLab \(https:\/\/staging.example.com, https:\/\/gitlab.example.com\): restore each one's lines on its own, against it/,
    );
    expect(() => parseRestoreText([line({ gitlabUrl: "https://gitlab.example.com" }), line({ projectId: 3 })].join("\n"))).toThrow(/more than one GitLab .*none named: written by an earlier Warden/);
    expect(parseRestoreText(line({ gitlabUrl: "https://gitlab.example.com/" })).madeOn).toBe("https://gitlab.example.com");
    expect(parseRestoreText(line({})).madeOn).toBeUndefined();
  });
});

