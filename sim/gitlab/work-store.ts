/**
 * Issues and merge requests created through the API (issues-api.ts, merge-requests.ts answer the
 * routes), stored per project. Stored issue iids start above the fixed issues issues.ts derives for
 * every project (iids 1..3), and merge request iids above the seeded ones, so the two never collide.
 */
export interface SimUserRef {
  id: number;
  username: string;
  name: string;
}

export interface SimIssueNote {
  id: number;
  body: string;
  author: SimUserRef;
  created_at: string;
  updated_at: string;
  system: boolean;
  noteable_type: "Issue";
  noteable_iid: number;
}

export interface SimIssue {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: "opened" | "closed";
  labels: string[];
  assignees: SimUserRef[];
  author: SimUserRef;
  due_date: string | null;
  confidential: boolean;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /** Who closed it, while it is closed (GitLab's issue entity's closed_by); null while open. */
  closed_by: SimUserRef | null;
  web_url: string;
  notes: SimIssueNote[];
}

export interface SimCreatedMergeRequest {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: "opened" | "merged" | "closed";
  source_branch: string;
  target_branch: string;
  force_remove_source_branch: boolean;
  sha: string;
  author: SimUserRef;
  created_at: string;
  web_url: string;
}

/** The fixed issues issues.ts derives per project: stored ones start above them. */
export const DERIVED_ISSUES = 3;

export class SimWork {
  readonly issues = new Map<number, SimIssue[]>();
  readonly mergeRequests = new Map<number, SimCreatedMergeRequest[]>();
  private lastId = 9_000_000;
  /** A clock that always moves on, so each change's time differs from the one before. */
  private lastMs = 0;

  private readonly clock: () => number;

  /** `clock`: the time of the world (GitLabSimOptions.clock), which a test may set to the run's. */
  constructor(clock: () => number = Date.now) {
    this.clock = clock;
  }

  nextId(): number {
    return ++this.lastId;
  }

  tick(): string {
    this.lastMs = Math.max(this.clock(), this.lastMs + 1);
    return new Date(this.lastMs).toISOString();
  }

  issuesOf(projectId: number): SimIssue[] {
    let list = this.issues.get(projectId);
    if (!list) this.issues.set(projectId, (list = []));
    return list;
  }

  mergeRequestsOf(projectId: number): SimCreatedMergeRequest[] {
    let list = this.mergeRequests.get(projectId);
    if (!list) this.mergeRequests.set(projectId, (list = []));
    return list;
  }
}
