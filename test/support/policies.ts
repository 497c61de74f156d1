/** Policies the tests share; STANDARD is the one the GitLab simulator's share intents refer to. */
export function standardPolicy(maxRemovals = 1000): string {
  return `version: 1
gitlab:
  scope: { groups: [acme] }
  shares:
    allow:
      - group: "acme/**"
      - group: "partners/contractor-x"
        projects: ["acme/mobile/**"]
        maxAccess: developer
    exempt:
      - project: "acme/legacy/**"
  guard:
    maxRemovals: ${maxRemovals}
`;
}
