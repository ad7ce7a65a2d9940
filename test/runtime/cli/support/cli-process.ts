/** Runs the operator CLI (bin/capi-openstack.ts) as a real node process. */
import { spawnSync } from 'child_process';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const BIN = path.join(ROOT, 'bin', 'capi-openstack.ts');
const REGISTER = path.join(__dirname, 'ts-register.js');

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCliProcess(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): CliRun {
  const r = spawnSync(process.execPath, ['-r', REGISTER, BIN, ...args], { cwd, env: { ...env, CHECKPOINT_DISABLE: '1' }, encoding: 'utf8', timeout: 300_000 }); // sized for a loaded 2-core machine: the first run transpiles the CLI
  if (r.error) throw r.error;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
