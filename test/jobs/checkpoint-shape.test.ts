/**
 * The durable checkpoint's shape, pinned. A durable Enforce execution in flight during a deploy replays
 * the step results it recorded under the old code, so the JSON of every step (the examination's
 * frontier of work above all) must keep its keys: a field renamed or dropped here needs a versioned
 * reader for the old form. The runs below go through both ways of examining projects (with their
 * groups' details, and by listings split by subgroup and visibility) in short slices, so that every
 * kind of work is saved mid-way; every key path they record must be one pinned here, and the paths of
 * the work that every such run saves must all be seen.
 */
import { afterEach, expect, it } from "vitest";
import { GitLabClient } from "../../lib/gitlab/index.ts";
import { RateLimiterRegistry } from "../../lib/http/index.ts";
import { enforce } from "../../lib/jobs/index.ts";
import { parsePolicy } from "../../lib/policy/index.ts";
import { generateOrganisation, startGitLabSim, type GitLabSim } from "../../sim/gitlab/index.ts";
import { groupSharesPolicy, standardPolicy } from "../support/policies.ts";
import { recordingSteps } from "../support/steps.ts";

const NOW = new Date("2026-06-01T00:00:00Z");
const sims: GitLabSim[] = [];
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  sims.length = 0;
});

/** Every key path in a JSON value: `a.b`, `a[].c`; a leaf's path ends in `:type`. Record keys (numeric ids) read as `{id}`. */
function paths(value: unknown, at: string, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) paths(item, `${at}[]`, into);
  else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) paths(inner, `${at}.${/^\d+$/.test(key) ? "{id}" : key}`, into);
  } else into.add(`${at}:${value === null ? "null" : typeof value}`);
  return into;
}

/**
 * A dry run and an apply in 10 ms slices, a dry run limited to targets (a group with its subtree, a
 * group by itself, a project), and a comparison with a base policy (--compare-policy-ref), recording
 * every step's JSON result, key paths only.
 */
async function recordedPaths(detailProjects: boolean): Promise<Set<string>> {
  const seen = new Set<string>();
  for (const [apply, targeted, compared] of [[false, false, false], [true, false, false], [false, true, false], [false, false, true]]) {
    const { dataset } = generateOrganisation({ projects: 3_000, seed: 7, tree: { groups: 60, maxDepth: 4, heavy: 0.6 }, groupShares: true, now: NOW, shareHistory: true });
    const [tree, single] = dataset.groups.filter((g) => g.full_path.split("/").length === 2 && g.full_path.startsWith("acme/"));
    const project = dataset.projects.find((p) => p.path_with_namespace.startsWith("acme/"))!;
    const targets = [tree!.full_path, { kind: "group" as const, path: single!.full_path, subtree: false }, project.path_with_namespace];
    const sim = await startGitLabSim({ dataset, latencyMs: 2, detailProjects });
    sims.push(sim);
    const steps = recordingSteps({ sliceMs: 10, perStep: 25 });
    const step = steps.step.bind(steps);
    steps.step = async (name, run, opts) => {
      const result = await step(name, run, opts);
      paths(result, name.replace(/[\s\d]+(part[\s\d]+)?$/, ""), seen);
      return result;
    };
    const gitlab = new GitLabClient({ url: sim.url, token: sim.token, limiters: new RateLimiterRegistry(), retry: { baseDelayMs: 5 } });
    // The base lacks the group-share rules: the comparison has differences to record.
    const base = parsePolicy(standardPolicy(10_000), "base.yaml", { source: "gitlab", project: "security/policies", path: "warden.yaml", ref: "main", commitId: "0".repeat(40) });
    await enforce({ gitlab, policy: parsePolicy(groupSharesPolicy(10_000), "test.yaml"), now: NOW, listConcurrency: 8, apply, ...(targeted ? { targets } : {}), ...(compared ? { compareWith: base } : {}) }, steps);
  }
  return seen;
}

it("every step result a durable execution records keeps its pinned keys", async () => {
  const seen = new Set([...(await recordedPaths(true)), ...(await recordedPaths(false))]);
  const unpinned = [...seen].filter((p) => !PINNED.has(p.replace(/:[a-z]+$/, "")));
  expect(unpinned, "a checkpoint field is new or renamed: pin it here, with a reader for executions that saved the old form").toEqual([]);
  const missing = ALWAYS.filter((p) => ![...seen].some((s) => s.startsWith(`${p}:`)));
  expect(missing, "every run above records these").toEqual([]);
}, 120_000);

/** The frontier's work (lib/jobs' ProjectWork and GroupWork, with lib/paging's Checkpoint), as of main at aa424de; `list.project` (a project target) and `counted` (a group listing's first count) since. */
const WORK = [
  "kind", "list", "list.after", "list.before", "list.group", "list.own", "list.visibility", "list.project", "path", "partOf", "carried[]", "judgedUpTo", "share",
  ...["up", "down"].flatMap((end) => ["strategy", "next", "pages", "items"].map((f) => `at.${end}.${f}`)),
  "at.down", "at.top", "at.bottom", "at.seen", "at.projects",
  "pending[]", "list.descendantsOf", "counted", "from.strategy", "from.next", "from.pages", "from.items",
  "projects.root.id", "projects.root.path", "projects.carried", "projects.listed[]", "ancestors[].id", "ancestors[].path",
];
/** A planned or made removal (ShareRemoval): what examine's strays and remove's actions carry. */
const REMOVAL = ["type", "kind", "projectId", "project", "sharedGroupId", "sharedGroup", "groupId", "group", "accessLevel", "expiresAt", "memberRoleId", "reason", "status", "error"];
/** Who added a share (lib/jobs/enforce/attribution.ts), as the attribute step records it and removals carry it. */
const ATTRIBUTED = ["addedBy", "addedBy.name", "addedBy.username", "addedBy.at", "addedBy.eventId", "attribution"];
/**
 * Where the run's reads of audit events stand (lib/jobs/enforce/attribution-reads.ts' AttributionState), as each
 * examination step records it since attribution began during the examination; older steps have none.
 */
const READS = [
  "pages", "requests", "off", "open", "authors.{id}", "groups.{id}.path", "groups.{id}.begun", ...["strategy", "next", "pages", "items"].map((f) => `groups.{id}.from.${f}`),
  "groups.{id}.unread.attribution", "groups.{id}.unread.status", ...["share", "id", "authorId", "name", "at"].map((f) => `unclaimed[].${f}`),
].map((p) => `attribution.${p}`);
const STATS = ["requests", "retries", "rateLimited", "pages", "groupReads"].map((f) => `stats.${f}`);
const TALLY = ["projects", "shares", "groups", "groupShares", "allowed", "exempt", "outOfScope"].map((f) => `tally.${f}`);

/** Every key path a step result may have, by step (`examine 3` is `examine`). */
const PINNED = new Set([
  ...["startedAt", "now", "seesAllGroups", "admin", "userId", "warnings[]", ...STATS, ...WORK.map((p) => `frontier[].${p}`)].map((p) => `begin.${p}`),
  // Only when a target by id (an event's subject) could not be read (examine/targets.ts): none of the runs above has one.
  ...["target", "error", "lasting"].map((p) => `begin.unreadTargets[].${p}`),
  ...["spent", "stopped", "warnings[]", ...STATS, ...TALLY, ...WORK.map((p) => `frontier[].${p}`), "strays[].judgedAt", ...[...REMOVAL, ...ATTRIBUTED].map((p) => `strays[].action.${p}`), "matched.allow[]", "matched.exempt[]", ...READS,
    // A comparison of policies only (lib/jobs/enforce/compare.ts): the shares the two judge otherwise.
    "differences[].section", ...REMOVAL.map((p) => `differences[].action.${p}`),
    // Only when GitLab failed to answer for a group (examine/unexamined.ts): none of the runs above has one.
    "unexamined.count", ...["kind", "id", "path", "error", "lasting", "projects"].map((p) => `unexamined.parts[].${p}`)].map((p) => `examine.${p}`),
  // Only when a rule matched nothing: the warnings naming each, after the GETs of its literal paths.
  ...["warnings[]", ...STATS].map((p) => `rules.${p}`),
  // A targeted run only, when a rule matched nothing there: those naming a literal path the instance does not have.
  ...["missing[].rule.list", "missing[].rule.index", "missing[].missing[]", ...STATS].map((p) => `literal rules.${p}`),
  ...["warnings[]", "auditRequests", "budget", "stoppedAtBudget", ...STATS, ...ATTRIBUTED.map((p) => `attributed[].${p}`)].map((p) => `attribute.${p}`),
  // Its authors in parts of perStep removals (lib/jobs/steps.ts stepInParts): `parts` and where each ends (`ends`, cut by
  // bytes too; a result recorded before has none) on the first, each further part's in `part`
  // (`again`, the result of a part that read anew, is not seen here: no run above resumes between parts).
  "attribute.parts", "attribute.ends[]", ...ATTRIBUTED.map((p) => `attribute.part[].${p}`),
    // `remove N part M` too: a batch going on after its invocation's deadline, `sent` the DELETEs the part before sent unanswered.
  ...["spent", "stopped", "warnings[]", "sent[]", ...STATS, ...[...REMOVAL, ...ATTRIBUTED].map((p) => `actions[].${p}`)].map((p) => `remove.${p}`),
  "ended.at",
]);

/** Paths each run above records, whatever its timing: the identifying fields of each kind of work, and the plan. */
const ALWAYS = [
  "begin.frontier[].kind", "begin.frontier[].list.project", "begin.frontier[].pending[]", "begin.frontier[].list.descendantsOf", "begin.frontier[].ancestors[].id", "begin.frontier[].projects.root.id",
  "examine.frontier[].kind", "examine.frontier[].list.group", "examine.frontier[].at.up.next", "examine.frontier[].pending[]", "examine.frontier[].from.next",
  "examine.strays[].action.type", "examine.strays[].action.groupId", "examine.strays[].judgedAt", "remove.actions[].status", "ended.at",
  "begin.admin", "begin.userId", "attribute.attributed[].attribution", "attribute.parts", "attribute.part[].attribution", "examine.attribution.groups.{id}.begun", "examine.strays[].action.addedBy.eventId", "attribute.auditRequests", "remove.actions[].attribution",
  "examine.differences[].section", "examine.differences[].action.type",
];
