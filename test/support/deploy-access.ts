/**
 * Test environments deploy "from somewhere": a closed management API with the readiness wait on is
 * refused at synth, so fixtures that are not about that rule name the network cdktf deploy runs from.
 */
export const DEPLOY_CIDR = '203.0.113.0/24';

/**
 * `yaml` with `management.apiAllowedCidrs: [203.0.113.0/24]` added, unless it already says who may
 * reach the management API, turns the readiness wait off, or uses an existing management cluster.
 */
export function withDeployAccess(yaml: string): string {
  if (yaml.includes('existingManagementCluster')) return yaml;
  const lines = yaml.split('\n');
  const at = lines.findIndex((l) => /^management:/.test(l));
  if (at < 0) return `${yaml}${yaml === '' || yaml.endsWith('\n') ? '' : '\n'}management:\n  apiAllowedCidrs: [${DEPLOY_CIDR}]\n`;
  if (!/^management:\s*$/.test(lines[at])) return yaml; // a flow mapping: left as written
  let end = at + 1;
  while (end < lines.length && /^\s+\S|^\s*$/.test(lines[end]) && !(lines[end] === '' && end === lines.length - 1)) end++;
  if (lines.slice(at + 1, end).some((l) => /^\s+(apiAllowedCidrs|waitForReady):/.test(l))) return yaml;
  lines.splice(at + 1, 0, `  apiAllowedCidrs: [${DEPLOY_CIDR}]`);
  return lines.join('\n');
}
