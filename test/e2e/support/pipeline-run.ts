/** Helpers of the pipeline e2e suite: run scripts/pipeline/{plan,apply}, read their artifacts. */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface ScriptResult {
  readonly code: number | null;
  /** stdout + stderr, interleaved as they arrived. */
  readonly output: string;
}

/** Runs scripts/pipeline/<name> with the given environment; progress lines are echoed with the suite name. */
export function runPipeline(name: 'plan' | 'apply', env: NodeJS.ProcessEnv, timeoutMs = 20 * 60 * 1000): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'scripts', 'pipeline', name), [], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (d: Buffer) => {
      const text = d.toString('utf8');
      output += text;
      for (const line of text.split('\n')) if (line.startsWith('[pipeline')) process.stderr.write(`pipeline e2e: ${name}: ${line}\n`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`scripts/pipeline/${name} did not finish within ${timeoutMs / 1000} s; output so far:\n${output.slice(-4000)}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export interface PipelineStack {
  readonly name: string;
  readonly status: 'changes' | 'no-changes' | 'deferred' | 'skipped' | 'drift';
  readonly detail?: string;
  /** Wall time of init + plan. */
  readonly seconds?: number;
  readonly changes?: { readonly add: number; readonly change: number; readonly destroy: number; readonly replace: number };
}

export interface PipelineMeta {
  readonly environment: string;
  readonly mode: 'apply' | 'destroy' | 'drift';
  readonly commit: string;
  readonly stacks: readonly PipelineStack[];
  readonly applyOrder: readonly string[];
}

export function readMeta(pipelineDir: string): PipelineMeta {
  return JSON.parse(fs.readFileSync(path.join(pipelineDir, 'pipeline.json'), 'utf8')) as PipelineMeta;
}

export function stackResult(meta: PipelineMeta, stack: string): PipelineStack {
  const s = meta.stacks.find((x) => x.name === stack);
  if (!s) throw new Error(`pipeline.json has no entry for ${stack}: ${JSON.stringify(meta.stacks)}`);
  return s;
}

/** Managed resource addresses in a local state file ([] when the file does not exist). */
export function stateResources(stateFile: string): string[] {
  if (!fs.existsSync(stateFile)) return [];
  const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { resources?: { mode: string; type: string; name: string; instances: unknown[] }[] };
  return (state.resources ?? []).filter((r) => r.mode === 'managed' && r.instances.length > 0).map((r) => `${r.type}.${r.name}`);
}
