/**
 * Outputs of a deployed stack, read with `terraform output -json` in its synthesized directory
 * (`cdktf.out/stacks/<stack>`). Sensitive outputs are included by `-json`; stdout is parsed and
 * never printed, stderr is reduced to its first error line.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CliError } from '../errors';

export interface StackOutput {
  readonly value: unknown;
  readonly sensitive: boolean;
}

export type StackOutputs = Readonly<Record<string, StackOutput>>;

/** Parses the stdout of `terraform output -json`. */
export function parseOutputsJson(stdout: string, stack: string): StackOutputs {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    throw new CliError(`terraform output of stack ${stack} is not JSON (is "terraform" the Terraform CLI?)`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new CliError(`terraform output of stack ${stack}: expected a JSON object`);
  const out: Record<string, StackOutput> = {};
  for (const [name, entry] of Object.entries(data as Record<string, unknown>)) {
    if (!entry || typeof entry !== 'object' || !('value' in entry)) throw new CliError(`terraform output of stack ${stack}: output "${name}" has no value`);
    const e = entry as { value: unknown; sensitive?: unknown };
    out[name] = { value: e.value, sensitive: e.sensitive === true };
  }
  return out;
}

/** One output by name, with a message that lists what the stack has instead. */
export function requireOutput(outputs: StackOutputs, stack: string, name: string): unknown {
  const names = Object.keys(outputs);
  if (names.length === 0) throw new CliError(`stack ${stack} has no outputs: it has not been deployed yet (cdktf deploy ${stack})`);
  if (!(name in outputs)) throw new CliError(`stack ${stack} has no output "${name}" (it has: ${names.sort().join(', ')})`);
  return outputs[name].value;
}

/** First `Error: …` line of Terraform's stderr (box drawing and colours removed), for a one-line failure. */
export function terraformErrorLine(stderr: string): string {
  const lines = stderr
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split(/\r?\n/)
    .map((l) => l.replace(/^[\s│╷╵]+/, '').trim())
    .filter(Boolean);
  const i = lines.findIndex((l) => l.startsWith('Error:'));
  if (i < 0) return lines[lines.length - 1] ?? 'no message';
  const detail = lines.slice(i + 1).find((l) => !l.startsWith('Warning:'));
  const head = lines[i].replace(/^Error:\s*/, '');
  return detail && head.length < 60 && !/^(Error|Warning):/.test(detail) ? `${head}: ${detail}` : head;
}

export interface TerraformRunOptions {
  /** Project directory (where scripts/toolchain/env.sh may live). */
  readonly projectDir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Bound of the whole call. @default 120000 */
  readonly timeoutMs?: number;
}

/**
 * Runs `terraform output -json` in the stack directory. Toolchain: a TF_CLI_CONFIG_FILE already
 * in the environment is used as is; otherwise `scripts/toolchain/env.sh` of the project is sourced
 * when it exists; otherwise plain `terraform` from PATH (TERRAFORM_BINARY_NAME overrides).
 */
export async function readStackOutputs(stackDir: string, stack: string, options: TerraformRunOptions): Promise<StackOutputs> {
  return parseOutputsJson(await runTerraformInStack(stackDir, stack, ['output', '-json', '-no-color'], options), stack);
}

/** `terraform state pull` of the stack: its state as JSON (any backend), never printed. */
export async function pullStackState(stackDir: string, stack: string, options: TerraformRunOptions): Promise<unknown> {
  const stdout = await runTerraformInStack(stackDir, stack, ['state', 'pull'], options);
  try {
    return stdout.trim() === '' ? {} : JSON.parse(stdout);
  } catch {
    throw new CliError(`terraform state pull of stack ${stack} is not JSON (is "terraform" the Terraform CLI?)`);
  }
}

/** stdout of `terraform <args>` in the stack directory (see readStackOutputs for the toolchain). */
export async function runTerraformInStack(stackDir: string, stack: string, args: readonly string[], options: TerraformRunOptions): Promise<string> {
  if (!fs.existsSync(stackDir)) {
    throw new CliError(`no synthesized stack ${stack} (${stackDir} does not exist): run \`cdktf synth\` or \`cdktf deploy ${stack}\` in the project first`);
  }
  const env: NodeJS.ProcessEnv = { ...options.env, CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
  const envSh = path.join(options.projectDir, 'scripts', 'toolchain', 'env.sh');
  const useToolchain = !options.env.TF_CLI_CONFIG_FILE && fs.existsSync(envSh);
  const [cmd, argv] = useToolchain
    ? ['bash', ['-c', '. "$1" >&2 || exit 97; shift; exec "${TERRAFORM_BINARY_NAME:-terraform}" "$@"', 'capi-openstack', envSh, ...args]]
    : [options.env.TERRAFORM_BINARY_NAME || 'terraform', [...args]];
  const { code, stdout, stderr } = await run(cmd, argv, stackDir, env, options.timeoutMs ?? 120_000);
  if (code === 97) throw new CliError(`sourcing ${envSh} failed: ${terraformErrorLine(stderr)}`);
  if (code === 127 || code === -2) throw new CliError(`terraform not found (${cmd}): install it or source scripts/toolchain/env.sh`);
  if (code !== 0) {
    const line = terraformErrorLine(stderr);
    const hint = /Backend initialization required|terraform init/i.test(line) ? ` (the stack was never deployed from this directory: cdktf deploy ${stack})` : '';
    throw new CliError(`terraform ${args[0]} of stack ${stack} failed: ${line}${hint}`);
  }
  return stdout;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ code: e.code === 'ENOENT' ? -2 : -1, stdout: '', stderr: e.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: signal ? `Error: terraform did not finish within ${Math.round(timeoutMs / 1000)}s\n${stderr}` : stderr,
      });
    });
  });
}
