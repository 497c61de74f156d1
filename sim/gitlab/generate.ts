import { createRandom } from "../shared/random.ts";
import { ACCESS } from "./dataset.ts";
import type { GitLabDataset, SimGroup, SimProject, Visibility } from "./dataset.ts";
import { shareAuditEvents, type ShareHistory } from "./generate-audit-events.ts";
import { addGroupShares, type GroupShareIntent, type IntentBase } from "./generate-group-shares.ts";
import { addTree, type TreeShape } from "./generate-tree.ts";

/**
 * Ground truth for every generated share under the standard policy:
 *   scope: { groups: [acme] }
 *   shares.allow:
 *     - { group: "acme/**" }                                        # both kinds
 *     - { group: "partners/contractor-x", projects: ["acme/mobile/**"], maxAccess: developer }
 *     - { group: "auditors", groups: ["acme", "acme/platform/**"], maxAccess: reporter, expiresWithin: 90d }
 *   shares.exempt: [{ project: "acme/legacy/**" }, { group: "acme/legacy/**" }]
 * Shares on projects and by groups outside the scope are "allowed". Expiry is judged against
 * GenerateOptions.now in UTC days (generate-group-shares.ts lists the edge days it covers).
 * The group-share rules change no project share's intent.
 */
/** Each kind names the other kind's id as absent, so code may read either id of any intent. */
export type ShareIntent = ProjectShareIntent | GroupShareIntent;
export type { GroupShareIntent };

export interface ProjectShareIntent extends IntentBase {
  kind: "project";
  projectId: number;
  sharedGroupId?: undefined;
}

export interface GenerateOptions {
  seed?: number;
  projects: number;
  /** Share of in-scope projects that get one stray outside share (default 0.03). */
  strayRatio?: number;
  /**
   * Also generate group-to-group shares (default false). They are made after everything else, with
   * the `auditors` group and three groups under acme/platform added at the end, so the projects,
   * their shares and the ids of everything else are exactly those of the same seed without them.
   */
  groupShares?: boolean;
  /** The day expiry edge cases are relative to (default: now). Only group shares use it. */
  now?: Date;
  /**
   * An uneven tree instead of about one subgroup per 50 projects (generate-tree.ts). Without it, a
   * seed's output is what it always was.
   */
  tree?: TreeShape;
  /**
   * Also seed the audit events that record who made each share, as a Premium instance holds them
   * (generate-audit-events.ts; `now` defaults to the option above). Without it, no share has one.
   */
  shareHistory?: boolean | ShareHistory;
}

type GroupSeed = readonly [fullPath: string, name: string, visibility: Visibility];

// Parents are listed before their children.
const ACME_GROUPS: readonly GroupSeed[] = [
  ["acme", "ACME", "public"],
  ["acme/platform", "Platform", "internal"],
  ["acme/platform/infra-tools", "Infra Tools", "internal"],
  ["acme/mobile", "Mobile", "internal"],
  ["acme/mobile/ios", "iOS", "internal"],
  ["acme/mobile/android", "Android", "internal"],
  ["acme/Web.Team", "Web Team", "public"],
  ["acme/data_science", "Data Science", "internal"],
  ["acme/data_science/ml-ops", "ML Ops", "private"],
  ["acme/security", "Security", "private"],
  ["acme/legacy", "Legacy", "internal"],
  ["acme/legacy/old_portal", "Old Portal", "internal"],
];
// Out of scope, in the order stray shares take them. `acme-ext` starts like acme, to catch a glob
// that forgets the slash: first, so that even a small organisation has such a stray.
const OUTSIDE_GROUPS: readonly GroupSeed[] = [
  ["acme-ext", "ACME External", "public"],
  ["partners", "Partners", "public"],
  ["partners/contractor-x", "Contractor X", "internal"],
  ["partners/agency-y", "Agency Y", "private"],
  ["freelancers", "Freelancers", "private"],
];
const CONTRACTOR = "partners/contractor-x";
const USERS: ReadonlyArray<readonly [username: string, name: string]> = [
  ["alice", "Alice Arnold"],
  ["bob", "Bob Brown"],
  ["carol", "Carol Chen"],
  ["dave", "Dave Diaz"],
  ["eve", "Eve Evans"],
];
const SUBGROUP_NAMING: ReadonlyArray<readonly [pathPrefix: string, namePrefix: string]> = [
  ["team-", "Team "],
  ["Squad.", "Squad "],
  ["guild_", "Guild "],
];
const PROJECT_WORDS: ReadonlyArray<readonly [path: string, name: string]> = [
  ["api", "API"],
  ["web-app", "Web App"],
  ["Billing", "Billing"],
  ["auth_service", "Auth Service"],
  ["data.pipeline", "Data Pipeline"],
  ["iOS-Client", "iOS Client"],
  ["docs", "Docs"],
  ["Infra.Config", "Infra Config"],
  ["ml_models", "ML Models"],
  ["Gateway", "Gateway"],
];
const SEPARATORS = ["-", "_", "."];
const LEVELS = [ACCESS.guest, ACCESS.reporter, ACCESS.developer, ACCESS.maintainer];
const PROJECTS_PER_SUBGROUP = 50;
const MAX_GROUP_DEPTH = 4;

interface Owner {
  id: number;
  full_path: string;
}

const depth = (g: SimGroup): number => g.full_path.split("/").length;

/** A deterministic organisation for a seed, with the intent of every share it contains. */
export function generateOrganisation(opts: GenerateOptions): { dataset: GitLabDataset; intents: ShareIntent[] } {
  const rng = createRandom(opts.seed ?? 1);
  const strayRatio = opts.strayRatio ?? 0.03;

  const groups: SimGroup[] = [];
  const byPath = new Map<string, SimGroup>();
  // Groups and user namespaces share one id sequence, as namespaces do in GitLab.
  let nextNamespaceId = 1;
  const addGroup = (full_path: string, name: string, visibility: Visibility): SimGroup => {
    const cut = full_path.lastIndexOf("/");
    const parent = cut < 0 ? undefined : byPath.get(full_path.slice(0, cut));
    const group: SimGroup = {
      id: nextNamespaceId++,
      name,
      path: full_path.slice(cut + 1),
      full_path,
      parent_id: parent?.id ?? null,
      visibility,
      shared_with_groups: [],
    };
    groups.push(group);
    byPath.set(full_path, group);
    return group;
  };
  const acme = ACME_GROUPS.map((seed) => addGroup(...seed));
  const outside = OUTSIDE_GROUPS.map((seed) => addGroup(...seed));
  // About one subgroup per PROJECTS_PER_SUBGROUP projects, hung at random under acme; or the tree asked for.
  const inTree = opts.tree && addTree(rng, acme, addGroup, opts.tree);
  const nestable = acme.filter((g) => depth(g) < MAX_GROUP_DEPTH);
  for (let n = acme.length; !inTree && n < Math.ceil(opts.projects / PROJECTS_PER_SUBGROUP); n++) {
    const parent = rng.pick(nestable);
    const [pathPrefix, namePrefix] = SUBGROUP_NAMING[n % SUBGROUP_NAMING.length]!;
    const visibility = parent.visibility === "private" ? "private" : "internal";
    const group = addGroup(`${parent.full_path}/${pathPrefix}${n}`, `${namePrefix}${n}`, visibility);
    acme.push(group);
    if (depth(group) < MAX_GROUP_DEPTH) nestable.push(group);
  }

  // User ids start at 2: id 1 is the admin behind the default token. User namespaces follow the groups.
  const users = USERS.map(([username, name], i) => ({ id: i + 2, username, name, namespace_id: nextNamespaceId++ }));
  const userOwners: Owner[] = users.map((u) => ({ id: u.namespace_id, full_path: u.username }));
  // The first projects visit every namespace once, so even a small organisation has each case.
  const everyOwner: Owner[] = [...acme, ...outside, ...userOwners];
  const pickOwner = (): Owner => {
    const r = rng.next();
    return r < 0.01 ? rng.pick(outside) : r < 0.02 ? rng.pick(userOwners) : inTree ? inTree() : rng.pick(acme);
  };

  const intents: ShareIntent[] = [];
  const share = (project: SimProject, group: SimGroup, level: number, intent: ShareIntent["intent"]): void => {
    if (group.id === project.namespace_id || project.shared_with_groups.some((s) => s.group_id === group.id)) return;
    project.shared_with_groups.push({
      group_id: group.id,
      group_name: group.name,
      group_full_path: group.full_path,
      group_access_level: level,
      expires_at: rng.next() < 0.1 ? "2031-06-30" : null,
    });
    intents.push({ kind: "project", projectId: project.id, groupId: group.id, intent });
  };
  // The root group stays out of share targets: whether "acme/**" matches "acme" itself is a policy question.
  const insideTargets = acme.slice(1);
  const contractor = byPath.get(CONTRACTOR)!;
  const mobileStrayPool = outside.filter((g) => g !== contractor);
  const counts = { outOfScope: 0, legacy: 0, mobile: 0, strays: 0 };
  const strayShare = (project: SimProject, pool: readonly SimGroup[]): void =>
    share(project, pool[counts.strays++ % pool.length]!, rng.pick(LEVELS), "stray");

  const projects: SimProject[] = [];
  let id = 0;
  for (let i = 0; i < opts.projects; i++) {
    const owner = everyOwner[i] ?? pickOwner();
    id += rng.next() < 0.1 ? 2 : 1; // gaps, as deleted projects leave in real id sequences
    const [word, label] = rng.pick(PROJECT_WORDS);
    const path = `${word}${rng.pick(SEPARATORS)}${i}`;
    const path_with_namespace = `${owner.full_path}/${path}`;
    const legacy = path_with_namespace.startsWith("acme/legacy/");
    const project: SimProject = {
      id,
      name: `${label} ${i}`,
      path,
      path_with_namespace,
      namespace_id: owner.id,
      shared_with_groups: [],
      default_branch: "main",
      branches: i % 4 === 0 ? ["main", "develop", "release/1.0", "feature/login"] : ["main", "develop", "release/1.0"],
      archived: rng.next() < (legacy ? 0.3 : 0.01),
      previous_paths: [],
    };
    projects.push(project);

    if (!path_with_namespace.startsWith("acme/")) {
      if (counts.outOfScope++ % 2 === 0) share(project, rng.pick(groups), rng.pick(LEVELS), "allowed");
    } else if (legacy) {
      // Only outside shares here: an acme share on an exempt project would be both allowed and exempt.
      if (counts.legacy++ % 2 === 0) share(project, rng.pick(outside), rng.pick(LEVELS), "exempt");
    } else {
      const inside = [0, 0, 1, 1, 2][rng.int(5)]!;
      for (let k = 0; k < inside; k++) share(project, rng.pick(insideTargets), rng.pick(LEVELS), "allowed");
      if (path_with_namespace.startsWith("acme/mobile/")) {
        const k = counts.mobile++;
        if (k % 10 === 1) share(project, contractor, rng.pick([ACCESS.reporter, ACCESS.developer]), "allowed");
        else if (k % 25 === 2) share(project, contractor, ACCESS.maintainer, "stray");
        else if (rng.next() < strayRatio) strayShare(project, mobileStrayPool);
      } else if (rng.next() < strayRatio) {
        strayShare(project, outside);
      }
    }
  }

  // One renamed project (the first in acme/platform): its old path answers with a redirect.
  const renamed = projects[1] ?? projects[0];
  if (renamed) renamed.previous_paths.push(renamed.path_with_namespace.replace(/[^/]+$/, (p) => `old-${p}`));

  if (opts.groupShares) intents.push(...addGroupShares({ rng, groups, addGroup, now: opts.now ?? new Date() }));

  const dataset: GitLabDataset = { groups, users, projects };
  if (opts.shareHistory) {
    const history = opts.shareHistory === true ? {} : opts.shareHistory;
    dataset.auditEvents = shareAuditEvents(dataset, opts.seed ?? 1, { ...(opts.now ? { now: opts.now } : {}), ...history });
  }
  return { dataset, intents };
}
