/**
 * clusterctl reads `~/.cluster-api/clusterctl.yaml` and `~/.cluster-api/overrides` (provider URLs,
 * images, whole component files) and configuration variables from the environment: the management
 * commands run it with a private, empty HOME and nothing of the user's environment but PATH. A
 * probe program in clusterctl's place reports what it was given.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Clusterctl } from '../../../lib/runtime/management/clusterctl';

const PROBE = `#!/bin/sh
if [ "$1" = version ]; then echo v1.14.2; exit 0; fi
echo "HOME=$HOME"
echo "XDG_CONFIG_HOME=$XDG_CONFIG_HOME"
echo "GITHUB_TOKEN=\${GITHUB_TOKEN:-}"
echo "CLUSTER_TOPOLOGY=\${CLUSTER_TOPOLOGY:-}"
echo "entries=$(ls -A "$HOME" | tr '\\n' ' ')"
`;

describe('clusterctl runs with a private HOME', () => {
  test("the user's HOME (with a clusterctl.yaml that redirects the providers), XDG_CONFIG_HOME and other variables never reach it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clusterctl-home-'));
    const probe = path.join(dir, 'clusterctl');
    fs.writeFileSync(probe, PROBE, { mode: 0o755 });
    const userHome = path.join(dir, 'home');
    fs.mkdirSync(path.join(userHome, '.cluster-api', 'overrides'), { recursive: true });
    fs.writeFileSync(path.join(userHome, '.cluster-api', 'clusterctl.yaml'), 'providers:\n  - name: cluster-api\n    url: https://attacker.example/core-components.yaml\n    type: CoreProvider\n');
    const env = { PATH: process.env.PATH, HOME: userHome, XDG_CONFIG_HOME: path.join(userHome, '.config'), GITHUB_TOKEN: 'ghp_secret', CLUSTER_TOPOLOGY: 'true' };
    const clusterctl = await Clusterctl.locate(probe, env, 'v1.14.2');
    const r = await clusterctl.run(['upgrade', 'plan'], env, () => undefined);
    expect(r.code).toBe(0);
    const seen = Object.fromEntries(r.output.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(seen.HOME).not.toBe(userHome);
    expect(seen.HOME.startsWith(os.tmpdir())).toBe(true);
    expect(seen.XDG_CONFIG_HOME).toBe(path.join(seen.HOME, '.config'));
    expect(seen.entries.trim()).toBe('');
    expect(seen.GITHUB_TOKEN).toBe('');
    expect(seen.CLUSTER_TOPOLOGY).toBe('');
    // removed after the run
    expect(fs.existsSync(seen.HOME)).toBe(false);
  });
});
