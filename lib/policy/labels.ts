/**
 * A label a policy adds to Warden's notices: a GitLab label name (the API takes labels comma-separated,
 * so none may hold a comma), and not one of Warden's own: a notice's share is named by its
 * warden-share:: label (lib/jobs/notices/marker.ts), and a second one would leave it naming none.
 */
export function labelProblem(name: string): string | undefined {
  if (name.trim() === "" || name.length > 255 || /[,\x00-\x1f\x7f]/.test(name)) return `${JSON.stringify(name)} is not a label name (1 to 255 characters, no comma or control character)`;
  // As GitLab keeps it: the API strips the spaces around each label, so " warden-share::x" is one of Warden's too.
  return /^warden(?:-share|-closed)?::/i.test(name.trim()) ? `${JSON.stringify(name)} is one of Warden's own labels (warden::…, warden-share::…, warden-closed::…): choose another` : undefined;
}
