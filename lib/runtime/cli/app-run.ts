/**
 * Runs a cdktf project's app the way `cdktf synth` does (the `app` command of its cdktf.json, in
 * its directory, with CDKTF_OUTDIR), into a fresh directory that is removed afterwards: what
 * `validate --app-dir` checks is what the app builds, environments built in code included.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CliError } from './errors';
import { CliIo, displayPath } from './io';
import { readSynthesizedApp, SynthesizedApp } from './synthesized-app';

/** Bound of one run of the app (a TypeScript app compiled on the fly takes tens of seconds). */
const APP_TIMEOUT_MS = 10 * 60_000;

export type AppRun = { readonly ok: true; readonly app: SynthesizedApp; readonly stderr: string } | { readonly ok: false; readonly code: number | null; readonly stderr: string };

/** The `app` command and context of `<dir>/cdktf.json`. */
function projectConfig(dir: string, cwd: string): { app: string; context: Record<string, unknown> } {
  const file = path.join(dir, 'cdktf.json');
  let cfg: { app?: unknown; context?: unknown };
  try {
    cfg = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist (--app-dir names a cdktf project)' : `is not JSON (${(e as Error).message.slice(0, 80)})`;
    throw new CliError(`${displayPath(cwd, file)} ${why}`);
  }
  if (typeof cfg.app !== 'string' || cfg.app.trim() === '') throw new CliError(`${displayPath(cwd, file)}: "app": expected the command that runs the app (e.g. "npx ts-node main.ts"), found ${JSON.stringify(cfg.app) ?? 'nothing'}`);
  const context = cfg.context && typeof cfg.context === 'object' && !Array.isArray(cfg.context) ? (cfg.context as Record<string, unknown>) : {};
  return { app: cfg.app, context };
}

/** Runs the app of the project in `dir`; the synthesized output is read before its directory is removed. */
export async function runApp(dir: string, io: CliIo): Promise<AppRun> {
  const { app, context } = projectConfig(dir, io.cwd);
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'capi-openstack-validate-'));
  try {
    const env = {
      ...io.env,
      CDKTF_OUTDIR: outDir,
      CDKTF_CONTEXT_JSON: JSON.stringify(context),
      // error annotations land in the manifest, where they are reported with the rest
      CDKTF_CONTINUE_SYNTH_ON_ERROR_ANNOTATIONS: 'true',
    };
    const { code, stderr } = await runShell(app, dir, env);
    if (code !== 0) return { ok: false, code, stderr };
    const synthesized = readSynthesizedApp(outDir, io.cwd);
    if (!synthesized) throw new CliError(`the app of ${displayPath(io.cwd, dir)} (${app}) wrote no manifest.json: does it call app.synth()?`);
    return { ok: true, app: synthesized, stderr };
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

function runShell(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, { cwd, env, shell: true, stdio: ['ignore', 'ignore', 'pipe'] });
    const err: Buffer[] = [];
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGTERM'), APP_TIMEOUT_MS);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: -1, stderr: e.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({ code, stderr: signal ? `${stderr}\nthe app did not finish within ${APP_TIMEOUT_MS / 60_000} min (${signal})` : stderr });
    });
  });
}
