import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const SCRIPT = path.join(__dirname, '..', '..', 'scripts', 'pipeline', 'locks.js');

const block = (addr: string, version: string, hash: string) =>
  `provider "${addr}" {\n  version     = "${version}"\n  constraints = "~> ${version}"\n  hashes = [\n    "h1:${hash}=",\n  ]\n}`;

function stack(dir: string, name: string, providers: Record<string, string>, lock?: string) {
  fs.mkdirSync(path.join(dir, name));
  const required = Object.fromEntries(Object.entries(providers).map(([k, source]) => [k, { source, version: '~> 1.0' }]));
  fs.writeFileSync(path.join(dir, name, 'cdk.tf.json'), JSON.stringify({ terraform: { required_providers: required } }));
  if (lock) fs.writeFileSync(path.join(dir, name, '.terraform.lock.hcl'), lock);
}

describe('scripts/pipeline/locks.js seed: stacks planned side by side only read the plugin cache', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-locks-'));
    const first = ['# header', block('registry.terraform.io/hashicorp/kubernetes', '3.2.1', 'K'), block('registry.terraform.io/terraform-provider-openstack/openstack', '3.4.0', 'O')].join('\n\n');
    stack(dir, 'env-a', { kubernetes: 'hashicorp/kubernetes', openstack: 'terraform-provider-openstack/openstack' }, `${first}\n`);
    stack(dir, 'env-b', { openstack: 'terraform-provider-openstack/openstack', kubernetes: 'hashicorp/kubernetes' });
    stack(dir, 'env-c', { tls: 'hashicorp/tls', openstack: 'terraform-provider-openstack/openstack' });
    stack(dir, 'env-d', { kubernetes: 'hashicorp/kubernetes' }, 'own lock\n');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const seed = (...stacks: string[]) => spawnSync('node', [SCRIPT, 'seed', dir, ...stacks], { encoding: 'utf8' });

  test('a stack whose providers are all recorded gets exactly their blocks; one that needs another provider is named', () => {
    const r = seed('env-b', 'env-c', 'env-d');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('env-c\n');
    const lock = fs.readFileSync(path.join(dir, 'env-b', '.terraform.lock.hcl'), 'utf8');
    expect(lock.match(/^provider "/gm)).toHaveLength(2);
    expect(lock).toContain(block('registry.terraform.io/hashicorp/kubernetes', '3.2.1', 'K'));
    expect(lock).toContain(block('registry.terraform.io/terraform-provider-openstack/openstack', '3.4.0', 'O'));
    expect(fs.existsSync(path.join(dir, 'env-c', '.terraform.lock.hcl'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'env-d', '.terraform.lock.hcl'), 'utf8')).toBe('own lock\n');
  });

  test('once a stack with the missing provider has its own lock file, the rest can be seeded', () => {
    fs.writeFileSync(path.join(dir, 'env-a', '.terraform.lock.hcl'), `${block('registry.terraform.io/hashicorp/tls', '4.3.0', 'T')}\n`, { flag: 'a' });
    const r = seed('env-c');
    expect(r.stdout).toBe('');
    expect(fs.readFileSync(path.join(dir, 'env-c', '.terraform.lock.hcl'), 'utf8')).toContain('registry.terraform.io/hashicorp/tls');
  });

  test('usage errors exit 1 with a message', () => {
    const r = spawnSync('node', [SCRIPT, 'merge'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('usage: locks.js seed');
  });
});
