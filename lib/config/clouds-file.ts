/**
 * Reads the non-secret parts of a clouds.yaml entry (auth URL, region, CA file) so the management
 * VM can be told where Keystone is. Passwords and secrets are never read.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';

export interface CloudEntry {
  readonly file: string;
  readonly authUrl?: string;
  readonly region?: string;
  readonly caCertificateFile?: string;
  readonly interface?: string;
}

/** The places OpenStack clients look for clouds.yaml, in their order. */
export function cloudsFileCandidates(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string[] {
  return [
    env.OS_CLIENT_CONFIG_FILE,
    path.join(cwd, 'clouds.yaml'),
    path.join(os.homedir(), '.config', 'openstack', 'clouds.yaml'),
    '/etc/openstack/clouds.yaml',
  ].filter((p): p is string => !!p);
}

/** Finds `cloudName` in the first clouds.yaml that has it; undefined when none does. */
export function findCloudEntry(cloudName: string, explicitFile?: string): CloudEntry | undefined {
  const files = explicitFile ? [explicitFile] : cloudsFileCandidates();
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const doc = parse(fs.readFileSync(file, 'utf8')) as { clouds?: Record<string, Record<string, unknown>> } | null;
    const entry = doc?.clouds?.[cloudName];
    if (!entry) continue;
    const auth = (entry.auth ?? {}) as Record<string, unknown>;
    const cacert = typeof entry.cacert === 'string' ? entry.cacert : undefined;
    return {
      file,
      authUrl: typeof auth.auth_url === 'string' ? auth.auth_url : undefined,
      region: typeof entry.region_name === 'string' ? entry.region_name : undefined,
      caCertificateFile: cacert ? path.resolve(path.dirname(file), cacert) : undefined,
      interface: typeof entry.interface === 'string' ? entry.interface : undefined,
    };
  }
  return undefined;
}
