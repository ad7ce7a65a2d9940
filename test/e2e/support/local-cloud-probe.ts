/** The local cloud as the e2e suites see it before they start: its password entry, and whether it answers. */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import { locateCloud } from '../../../lib/config/clouds-file';

export interface PasswordCloud {
  readonly authUrl: string;
  readonly username: string;
  readonly password: string;
  readonly projectName: string;
  readonly userDomainName: string;
  readonly projectDomainName: string;
  readonly region: string;
  readonly interface: string;
}

/** A password entry of the local cloud's clouds.yaml, read with the project's one clouds.yaml reader. */
export function readPasswordCloud(file: string, cloud: string): PasswordCloud {
  const c = locateCloud(cloud, [file])?.entry ?? {};
  const a = c?.auth ?? {};
  for (const key of ['auth_url', 'username', 'password', 'project_name']) {
    if (typeof a[key] !== 'string') throw new Error(`${file}: clouds.${cloud}.auth.${key} is missing`);
  }
  return {
    authUrl: String(a.auth_url).replace(/\/+$/, ''),
    username: a.username,
    password: a.password,
    projectName: a.project_name,
    userDomainName: a.user_domain_name ?? 'Default',
    projectDomainName: a.project_domain_name ?? 'Default',
    region: c.region_name ?? 'RegionOne',
    interface: c.interface ?? 'public',
  };
}

/** Synchronous probe (decides describe vs describe.skip): does Keystone answer, is Cinder in the catalog? */
export function probeLocalCloud(cloudsYaml: string, cloud: string): { ok: boolean; cinder: boolean; why: string } {
  if (!fs.existsSync(cloudsYaml)) return { ok: false, cinder: false, why: `${cloudsYaml} does not exist` };
  let entry: PasswordCloud;
  try {
    entry = readPasswordCloud(cloudsYaml, cloud);
  } catch (e) {
    return { ok: false, cinder: false, why: (e as Error).message };
  }
  const body = {
    auth: {
      identity: { methods: ['password'], password: { user: { name: entry.username, domain: { name: entry.userDomainName }, password: entry.password } } },
      scope: { project: { name: entry.projectName, domain: { name: entry.projectDomainName } } },
    },
  };
  const script = `fetch(process.argv[1] + '/auth/tokens', { method: 'POST', headers: { 'content-type': 'application/json' }, body: process.argv[2], signal: AbortSignal.timeout(8000) })
    .then(async (r) => { if (r.status !== 201) process.exit(2); const j = await r.json(); process.exit(j.token.catalog.some((s) => s.type === 'block-storage' || s.type === 'volumev3') ? 0 : 3); }, () => process.exit(1))`;
  const probe = spawnSync(process.execPath, ['-e', script, entry.authUrl, JSON.stringify(body)], { timeout: 12_000 });
  if (probe.status === 0) return { ok: true, cinder: true, why: '' };
  if (probe.status === 3) return { ok: true, cinder: false, why: 'the local cloud runs without Cinder' };
  return { ok: false, cinder: false, why: probe.status === 2 ? `Keystone at ${entry.authUrl} refused the ${cloud} login` : `Keystone at ${entry.authUrl} does not answer` };
}
