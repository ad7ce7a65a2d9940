/** Running rendered bootstrap scripts for real: bash, script files, checksums. */
import { execFile } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';

const execFileAsync = promisify(execFile);

/** Runs a script with bash; never throws: exit code and the combined output. */
export async function bash(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  try {
    const r = await execFileAsync('bash', [script, ...args], { env: { ...process.env, ...env }, timeout: 120_000 });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

export function writeScripts(dir: string, scripts: Record<string, string>): void {
  for (const [name, content] of Object.entries(scripts)) {
    fs.writeFileSync(path.join(dir, name), content, { mode: 0o700 });
  }
}

export const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
