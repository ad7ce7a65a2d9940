/**
 * A `## template: jinja` user data document rendered the way a node's cloud-init renders it: with
 * cloud-init's own Jinja part handler (Debian package `cloud-init`, run by the Python interpreter the
 * `cloud-init` command uses), from instance data shaped like an OpenStack instance's, then parsed
 * as cloud-config YAML. Nothing here re-implements Jinja.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';

/** Instance data as cloud-init's OpenStack datasource writes it (the keys our and CAPI's templates use). */
export const OPENSTACK_INSTANCE_DATA = {
  v1: {
    cloud_name: 'openstack',
    platform: 'openstack',
    instance_id: '0f3c2a4e-7a1b-4a51-9d5e-2b7c1e8f9a10',
    local_hostname: 'demo-control-plane-x7k2p',
    region: 'RegionOne',
    availability_zone: 'nova',
  },
  ds: {
    meta_data: {
      uuid: '0f3c2a4e-7a1b-4a51-9d5e-2b7c1e8f9a10',
      name: 'demo-control-plane-x7k2p',
      hostname: 'demo-control-plane-x7k2p',
      local_hostname: 'demo-control-plane-x7k2p',
      availability_zone: 'nova',
    },
  },
};

const RENDER = `
import json, sys, yaml
from cloudinit.handlers.jinja_template import render_jinja_payload
request = json.load(sys.stdin)
results = []
for n, payload in enumerate(request["payloads"]):
    rendered = render_jinja_payload(payload, "part-%03d" % n, request["instanceData"])
    if rendered is None:
        sys.exit("cloud-init ignored the template of document %d (it could not render it)" % n)
    results.append({"rendered": rendered, "config": yaml.safe_load(rendered)})
json.dump(results, sys.stdout)
`;

/** The Python that runs cloud-init (its shebang), or undefined when cloud-init is not installed. */
export function cloudInitPython(): string | undefined {
  const where = spawnSync('sh', ['-c', 'command -v cloud-init'], { encoding: 'utf8' });
  const bin = where.stdout.trim();
  if (where.status !== 0 || bin === '') return undefined;
  const shebang = /^#!\s*(\S+)/.exec(fs.readFileSync(bin, 'utf8').split('\n')[0]);
  return shebang?.[1];
}

export interface RenderedUserData {
  /** The document after Jinja, header removed. */
  readonly rendered: string;
  /** The document parsed as YAML, as cloud-init parses cloud-config. */
  readonly config: { write_files: { path: string; content: string; encoding?: string }[]; runcmd: string[] };
}

/** Renders each of `payloads` with cloud-init's Jinja handler (one Python process); throws with cloud-init's message when it cannot. */
export function renderWithCloudInit(payloads: readonly string[], instanceData: unknown = OPENSTACK_INSTANCE_DATA): RenderedUserData[] {
  const python = cloudInitPython();
  if (!python) throw new Error('cloud-init is not installed (Debian package cloud-init)');
  const r = spawnSync(python, ['-c', RENDER], { input: JSON.stringify({ payloads, instanceData }), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`cloud-init could not render the user data: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return JSON.parse(r.stdout) as RenderedUserData[];
}
