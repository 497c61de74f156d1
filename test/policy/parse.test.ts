import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ACCESS_LEVELS, accessLevelName, parsePolicy, PolicyError } from "../../lib/policy/index.ts";
import { issuesOf } from "../support/policies.ts";

const GITLAB = "version: 1\ngitlab:\n  shares:\n    allow:\n";

describe("parsePolicy validation", () => {
  it.each<[string, string, string, string]>([
    // [kind, YAML, path, message]
    ["a wrong version", "version: 2\n", "version", "unsupported version 2 (expected 1)"],
    ["a missing version", "gitlab:\n  shares:\n    allow: []\n", "version", "required"],
    ["an unknown top-level key", "version: 1\ngitlb: {}\n", "gitlb",
      "unknown field (expected version, gitlab, pipelines, n8n, chatops or notify)"],
    ["an unknown nested key", `${GITLAB}      - group: x\n        maxAcess: guest\n`, "gitlab.shares.allow[0].maxAcess",
      "unknown field (expected group, projects, groups, maxAccess, memberRoles or expiresWithin)"],
    ["a missing required list", "version: 1\ngitlab:\n  shares: {}\n", "gitlab.shares.allow", "required"],
    ["an empty value where a list belongs", `${GITLAB}`, "gitlab.shares.allow", "expected a list, got an empty value"],
    ["a wrong type", `${GITLAB}      - group: 5\n`, "gitlab.shares.allow[0].group", "expected a string, got 5"],
    ["an empty segment", `${GITLAB}      - group: "a//b"\n`, "gitlab.shares.allow[0].group",
      'invalid glob "a//b": it has an empty segment (//)'],
    ["** mixed with text", `${GITLAB}      - group: "acme/x**"\n`, "gitlab.shares.allow[0].group",
      'invalid glob "acme/x**": ** must be a whole segment'],
    ["a leading slash", `${GITLAB}      - group: /acme\n`, "gitlab.shares.allow[0].group",
      'invalid glob "/acme": it must not start or end with /'],
    ["a trailing slash", `${GITLAB}      - group: x\n        projects: ["acme/"]\n`, "gitlab.shares.allow[0].projects[0]",
      'invalid glob "acme/": it must not start or end with /'],
    ["a character GitLab paths cannot hold", `${GITLAB}      - group: "acme/a b"\n`, "gitlab.shares.allow[0].group",
      'invalid glob "acme/a b": " " cannot appear in a GitLab path'],
    ["an empty projects list", `${GITLAB}      - group: x\n        projects: []\n`, "gitlab.shares.allow[0].projects",
      "must not be empty"],
    ["an unknown access level", `${GITLAB}      - group: x\n        maxAccess: dev\n`, "gitlab.shares.allow[0].maxAccess",
      'unknown access level "dev" (expected guest, planner, reporter, developer, maintainer or owner)'],
    ["an access level given as a number", `${GITLAB}      - group: x\n        maxAccess: 30\n`,
      "gitlab.shares.allow[0].maxAccess",
      "unknown access level 30 (expected guest, planner, reporter, developer, maintainer or owner)"],
    ["a wildcard in a scope group", "version: 1\ngitlab:\n  scope:\n    groups: [acme/*]\n  shares:\n    allow: []\n",
      "gitlab.scope.groups[0]", 'invalid group path "acme/*": wildcards are not allowed here'],
    ["an impossible date", `${GITLAB}      []\n    exempt:\n      - project: x\n        until: 2027-02-30\n`,
      "gitlab.shares.exempt[0].until", '"2027-02-30" is not a calendar date YYYY-MM-DD'],
    ["a date that is not one", `${GITLAB}      []\n    exempt:\n      - project: x\n        until: next year\n`,
      "gitlab.shares.exempt[0].until", '"next year" is not a calendar date YYYY-MM-DD'],
    ["a date in another format", `${GITLAB}      []\n    exempt:\n      - project: x\n        until: 01/01/2027\n`,
      "gitlab.shares.exempt[0].until", '"01/01/2027" is not a calendar date YYYY-MM-DD'],
    ["a date given as a number", `${GITLAB}      []\n    exempt:\n      - project: x\n        until: 20270101\n`,
      "gitlab.shares.exempt[0].until", "expected a date YYYY-MM-DD, got 20270101"],
    // A YAML timestamp is judged as written: read as a Date, 2027-02-30 would roll over to March 2, and
    // 23:00 at -05:00 would be the next day in UTC, each an exemption longer than the file says.
    ["an impossible date under %YAML 1.1", `%YAML 1.1\n---\n${GITLAB}      []\n    exempt:\n      - project: x\n        until: 2027-02-30\n`,
      "gitlab.shares.exempt[0].until", '"2027-02-30" is not a calendar date YYYY-MM-DD'],
    ["day 31 of a 30-day month under %YAML 1.1", `%YAML 1.1\n---\n${GITLAB}      []\n    exempt:\n      - project: x\n        until: 2027-04-31\n`,
      "gitlab.shares.exempt[0].until", '"2027-04-31" is not a calendar date YYYY-MM-DD'],
    ["an impossible date tagged !!timestamp", `${GITLAB}      []\n    exempt:\n      - project: x\n        until: !!timestamp 2027-02-30\n`,
      "gitlab.shares.exempt[0].until", '"2027-02-30" is not a calendar date YYYY-MM-DD'],
    ["a timestamp with a time and zone", `%YAML 1.1\n---\n${GITLAB}      []\n    exempt:\n      - project: x\n        until: 2027-01-01 23:00:00 -05:00\n`,
      "gitlab.shares.exempt[0].until", '"2027-01-01 23:00:00 -05:00" is not a calendar date YYYY-MM-DD'],
    ["a zero guard", `${GITLAB}      []\n  guard:\n    maxRemovals: 0\n`, "gitlab.guard.maxRemovals",
      "must be a positive integer, got 0"],
    // Non-finite numbers as YAML writes them: JSON would say null, blaming an empty value.
    ["an infinite guard", `${GITLAB}      []\n  guard:\n    maxRemovals: .inf\n`, "gitlab.guard.maxRemovals",
      "must be a positive integer, got .inf"],
    ["a guard that is not a number", `${GITLAB}      []\n  guard:\n    maxRemovals: .nan\n`, "gitlab.guard.maxRemovals",
      "must be a positive integer, got .nan"],
    ["a guard beyond any number", `${GITLAB}      []\n  guard:\n    maxRemovals: 1e400\n`, "gitlab.guard.maxRemovals",
      "must be a positive integer, got .inf"],
    ["negative infinite attribution days", `${GITLAB}      []\n  attribution:\n    days: -.inf\n`, "gitlab.attribution.days",
      "expected a number of days from 0 to 3650, or off; got -.inf"],
    ["a non-number where a string belongs", `${GITLAB}      - group: .nan\n`, "gitlab.shares.allow[0].group", "expected a string, got .nan"],
    ["negative attribution days", `${GITLAB}      []\n  attribution:\n    days: -1\n`, "gitlab.attribution.days",
      "expected a number of days from 0 to 3650, or off; got -1"],
    ["attribution days as a word", `${GITLAB}      []\n  attribution:\n    days: never\n`, "gitlab.attribution.days",
      'expected a number of days from 0 to 3650, or off; got "never"'],
    ["a negative guard", "version: 1\nn8n:\n  workflows: { keepActive: [] }\n  guard: { maxChanges: -3 }\n",
      "n8n.guard.maxChanges", "must be a positive integer, got -3"],
    ["a fractional guard", "version: 1\nn8n:\n  workflows: { keepActive: [] }\n  guard: { maxChanges: 2.5 }\n",
      "n8n.guard.maxChanges", "must be a positive integer, got 2.5"],
    ["a bad ref glob", "version: 1\npipelines:\n  allow:\n    - { project: x, refs: ['a:b'] }\n",
      "pipelines.allow[0].refs[0]", 'invalid glob "a:b": ":" cannot appear in a git ref'],
    ["missing refs", "version: 1\npipelines:\n  allow:\n    - { project: x }\n", "pipelines.allow[0].refs", "required"],
    ["a bad variable name", "version: 1\npipelines:\n  allow:\n    - { project: x, refs: [main], variables: [A-B] }\n",
      "pipelines.allow[0].variables[0]", '"A-B" is not a variable name'],
    ["a selector without a kind", "version: 1\nn8n:\n  workflows:\n    keepActive: [production]\n",
      "n8n.workflows.keepActive[0]",
      'invalid selector "production" (expected id:<id>, name:<name> or tag:<tag>, with no space after the colon)'],
    ["a selector with a space after the colon", "version: 1\nn8n:\n  workflows:\n    keepActive: ['tag: production']\n",
      "n8n.workflows.keepActive[0]",
      'invalid selector "tag: production" (expected id:<id>, name:<name> or tag:<tag>, with no space after the colon)'],
    ["an unknown unlisted action", "version: 1\nn8n:\n  workflows:\n    keepActive: []\n    unlisted: delete\n",
      "n8n.workflows.unlisted", 'expected deactivate or report, got "delete"'],
    ["an unknown listedInactive action", "version: 1\nn8n:\n  workflows:\n    keepActive: []\n    listedInactive: yes\n",
      "n8n.workflows.listedInactive", 'expected activate, publish or report, got "yes"'],
    ["a Slack user name instead of an id", "version: 1\nchatops:\n  slack:\n    users: [alice]\n",
      "chatops.slack.users[0]", '"alice" is not a Slack user id (like U012ABCDEF)'],
    ["a channel name instead of an id", "version: 1\nchatops:\n  slack:\n    users: [U1]\n    channels: ['#ops']\n",
      "chatops.slack.channels[0]", '"#ops" is not a Slack channel id (like C0123456)'],
    ["an apply user who may not run commands", "version: 1\nchatops:\n  slack:\n    users: [U1]\n    applyUsers: [U2]\n",
      "chatops.slack.applyUsers[0]", "U2 is not listed in users"],
    ["a file that is not a mapping", "- version: 1\n", "", "expected a mapping, got a list"],
    ["an empty file", "", "", "expected a mapping, got an empty value"],
  ])("reports %s", (_, text, path, message) => {
    expect(issuesOf(text)).toEqual([{ path, message }]);
  });

  it("reports every issue at once, each with the file name and field path in the message", () => {
    const text = `
version: 1
gitlab:
  shares:
    allow:
      - group: "acme/**"
      - group: "partners/contractor-x"
      - group: "partners/agency-y"
        maxAccess: dev
    exempt:
      - project: "acme//legacy"
        until: 2027-13-01
  guard:
    maxRemovals: 0
pipelines:
  allow:
    - project: "acme/**"
      refs: [main]
      extra: true
`;
    let thrown: unknown;
    try {
      parsePolicy(text, "policies/warden.yaml");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PolicyError);
    const error = thrown as PolicyError;
    expect(error.name).toBe("PolicyError");
    expect(error.source).toBe("policies/warden.yaml");
    expect(error.issues.map((issue) => issue.path)).toEqual([
      "gitlab.shares.allow[2].maxAccess",
      "gitlab.shares.exempt[0].project",
      "gitlab.shares.exempt[0].until",
      "gitlab.guard.maxRemovals",
      "pipelines.allow[0].extra",
    ]);
    expect(error.message).toBe(
      [
        'policies/warden.yaml: gitlab.shares.allow[2].maxAccess: unknown access level "dev" (expected guest, planner, reporter, developer, maintainer or owner)',
        'policies/warden.yaml: gitlab.shares.exempt[0].project: invalid glob "acme//legacy": it has an empty segment (//)',
        'policies/warden.yaml: gitlab.shares.exempt[0].until: "2027-13-01" is not a calendar date YYYY-MM-DD',
        "policies/warden.yaml: gitlab.guard.maxRemovals: must be a positive integer, got 0",
        "policies/warden.yaml: pipelines.allow[0].extra: unknown field (expected project, refs, variables or unprotected)",
      ].join("\n"),
    );
  });

  it("reports each unknown key of one mapping separately", () => {
    expect(issuesOf("version: 1\nfoo: 1\nbar: 2\n").map((issue) => issue.path)).toEqual(["foo", "bar"]);
  });

  it.each([
    ["unbalanced brackets", "version: 1\ngitlab:\n  shares:\n    allow: [\n", "line 5, column 1: "],
    ["a duplicate key", "version: 1\nversion: 1\n", "line 2, column 1: Map keys must be unique"],
    ["a bad indentation", "version: 1\ngitlab:\n  shares:\n   allow: []\n  x\n", "line 5, column 3: "],
    ["two documents", "version: 1\n---\nversion: 1\n", "line 2, column 1: "],
    ["an unknown tag", "version: !foo 1\n", "line 1, column 10: Unresolved tag: !foo"],
  ])("reports YAML syntax errors with their line: %s", (_, text, start) => {
    const issues = issuesOf(text, "bad.yaml");
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]?.path).toBe("");
    expect(issues[0]?.message.startsWith(start)).toBe(true);
  });

  it("quotes only the offending line of a YAML error, cut, and nothing else of the file", () => {
    const text = `version: 1\nversion: ${"a".repeat(500)}\nnext: ${"b".repeat(40)}\n`;
    const [issue, ...rest] = issuesOf(text);
    expect(rest).toEqual([]);
    expect(issue!.message).toMatch(/^line 2, column 1: Map keys must be unique; the line: version: a{111}… \(\d+ more characters\)$/);
    expect(issue!.message).not.toContain("bbb");
  });

  it("describes a file that is one text (a .env, a dump) instead of quoting it", () => {
    expect(issuesOf("GITLAB_TOKEN=glpat-quoted-never\nN8N_API_KEY=other\n")).toEqual([
      { path: "", message: "expected a mapping, got a text of 49 characters (is it a policy file?)" },
    ]);
  });

  it("cuts a value quoted in a message, and every message in the error", () => {
    const [issue] = issuesOf(`${GITLAB}      - group: x\n        projects: ${"z".repeat(300)}\n`);
    expect(issue!.message).toMatch(/^expected a list, got "z{39}… \(262 more characters\)$/);
    expect(() => parsePolicy(`${GITLAB}      - group: x\n        maxAccess: ${"z".repeat(3000)}\n`, "w.yaml")).toThrow(/^w\.yaml: .{1,300}… \(\d+ more characters\)$/);
  });

  it("keeps one problem per line, whatever a quoted key holds", () => {
    expect(() => parsePolicy('version: 1\n"x\\nwarden.yaml: ok": 1\n', "warden.yaml")).toThrow(/^warden\.yaml: x\\x0awarden\.yaml: ok: unknown field \(.*\)$/);
  });

  it("names at most 20 problems, then says how many more", () => {
    const text = `version: 1\n${Array.from({ length: 30 }, (_, i) => `unknown${i}: 1`).join("\n")}\n`;
    const error = (() => {
      try {
        parsePolicy(text, "many.yaml");
      } catch (err) {
        return err as PolicyError;
      }
    })()!;
    expect(error.issues).toHaveLength(30);
    const lines = error.message.split("\n");
    expect(lines).toHaveLength(21);
    expect(lines.at(-1)).toBe("many.yaml: … and 10 more problems");
  });

  it("names the file and line in a YAML error's message", () => {
    expect(() => parsePolicy("version: 1\nversion: 1\n", "bad.yaml")).toThrow(
      "bad.yaml: line 2, column 1: Map keys must be unique",
    );
  });
});

describe("parsePolicy results", () => {
  it("accepts a policy with only a version, and with only a gitlab section", () => {
    // sha256 of "version: 1\n", as `printf 'version: 1\n' | sha256sum` gives it.
    expect(parsePolicy("version: 1\n", "a.yaml")).toEqual({
      version: 1,
      text: "version: 1\n",
      source: { source: "file", path: "a.yaml", sha256: "09bfcc6a14b83e2192b8673677725c84883ee9cd0c70e45c9ec09daa8f2b2847" },
    });
    const gitlabOnly = parsePolicy("version: 1\ngitlab:\n  shares:\n    allow: []\n", "b.yaml");
    expect(gitlabOnly.gitlab?.shares).toEqual({ allow: [], exempt: [], onStray: "remove" });
    expect(gitlabOnly.gitlab?.guard).toEqual({ maxRemovals: 25, unmatchedRules: "refuse" });
    expect(gitlabOnly.pipelines).toBeUndefined();
  });

  it("fills in defaults", () => {
    const policy = parsePolicy(
      "version: 1\npipelines:\n  allow:\n    - { project: x, refs: [main] }\nn8n:\n  workflows:\n    keepActive: []\n",
      "c.yaml",
    );
    expect(policy.pipelines?.allow[0]?.variables).toEqual([]);
    expect(policy.n8n).toEqual({ workflows: { keepActive: [], unlisted: "report", listedInactive: "report" }, guard: { maxChanges: 10 } });
  });

  it("limits the watch's polling to 3,600 requests an hour by default; a limit is a positive whole number", () => {
    expect(parsePolicy(`${GITLAB}      []\n`, "a.yaml").gitlab?.watch).toEqual({ maxRequestsPerHour: 3600 });
    expect(parsePolicy(`${GITLAB}      []\n  watch: { maxRequestsPerHour: 120 }\n`, "a.yaml").gitlab?.watch).toEqual({ maxRequestsPerHour: 120 });
    expect(() => parsePolicy(`${GITLAB}      []\n  watch: { maxRequestsPerHour: 0 }\n`, "a.yaml")).toThrow(/gitlab\.watch\.maxRequestsPerHour/);
    expect(() => parsePolicy(`${GITLAB}      []\n  watch: { every: 60 }\n`, "a.yaml")).toThrow(/gitlab\.watch/);
  });

  it("attributes removals 90 days back by default; `off` or 0 turns attribution off", () => {
    expect(parsePolicy(`${GITLAB}      []\n`, "a.yaml").gitlab?.attribution).toEqual({ days: 90 });
    expect(parsePolicy(`${GITLAB}      []\n  attribution: { days: off }\n`, "a.yaml").gitlab?.attribution).toEqual({ days: 0 });
    expect(parsePolicy(`${GITLAB}      []\n  attribution: { days: 45 }\n`, "a.yaml").gitlab?.attribution).toEqual({ days: 45 });
  });

  it("keeps an unquoted date a YYYY-MM-DD string, and accepts a YAML 1.1 timestamp and a !!timestamp", () => {
    const until = (text: string, day = "2027-01-01") =>
      parsePolicy(`${text}version: 1\ngitlab:\n  shares:\n    allow: []\n    exempt:\n      - project: x\n        until: ${day}\n`, "d.yaml")
        .gitlab?.shares.exempt[0]?.until;
    expect(until("")).toBe("2027-01-01");
    expect(until("%YAML 1.1\n---\n")).toBe("2027-01-01");
    expect(until("", "!!timestamp 2027-01-01")).toBe("2027-01-01");
  });

  it("compiles globs at parse time, keeping the pattern as written", () => {
    const policy = parsePolicy("version: 1\ngitlab:\n  shares:\n    allow:\n      - group: Acme/**\n", "e.yaml");
    const group = policy.gitlab?.shares.allow[0]?.group;
    expect(group?.pattern).toBe("Acme/**");
    expect(group?.matches("acme/x")).toBe(true);
  });
});

describe("examples/warden.yaml", () => {
  const text = readFileSync(new URL("../../examples/warden.yaml", import.meta.url), "utf8");

  it("parses, and its gitlab section is the documented one", () => {
    const policy = parsePolicy(text, "warden.yaml");
    const gitlab = policy.gitlab;
    expect(gitlab?.scope?.groups).toEqual(["acme"]);
    expect(gitlab?.shares.allow.map((rule) => [rule.group.pattern, rule.projects?.map((p) => p.pattern), rule.maxAccess])).toEqual([
      ["acme/**", undefined, undefined],
      ["partners/contractor-x", ["acme/mobile/**"], "developer"],
      ["auditors", undefined, "reporter"],
    ]);
    expect(gitlab?.shares.exempt.map((rule) => [rule.project?.pattern, rule.group?.pattern, rule.until])).toEqual([
      ["acme/legacy/**", undefined, "2027-01-01"],
      [undefined, "acme/legacy/**", undefined],
      ["acme/api", undefined, "2027-03-31"],
    ]);
    expect([gitlab?.shares.exempt[2]?.sharedWith?.pattern, gitlab?.shares.onStray]).toEqual(["partners/contractor-y", "remove"]);
    expect(gitlab?.guard.maxRemovals).toBe(25);
    expect(policy.pipelines).toBeDefined();
    expect(policy.n8n).toBeDefined();
    expect(policy.chatops).toBeDefined();
  });
});

describe("access levels", () => {
  it.each([
    [ACCESS_LEVELS.guest, "guest"],
    [ACCESS_LEVELS.reporter, "reporter"],
    [30, "developer"],
    [40, "maintainer"],
    [50, "owner"],
    [15, "planner"],
    [5, "minimal access"],
    [35, "level 35"],
    [0, "level 0"],
  ])("accessLevelName(%i) is %s", (level, name) => {
    expect(accessLevelName(level)).toBe(name);
  });
});
