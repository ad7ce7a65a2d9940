/**
 * The cdktf project a command works on: its directory (cdktf.json, local state files, the
 * toolchain script) and the output directory its app synthesizes into, read once when needed.
 */
import * as fs from 'fs';
import * as path from 'path';
import { OptionSpec, ParsedArgs, stringOption } from './args';
import { CliIo } from './io';
import { readSynthesizedApp, SynthesizedApp } from './synthesized-app';

export const APP_DIR_OPTION: OptionSpec = {
  name: 'app-dir',
  value: '<dir>',
  description: 'The cdktf project (cdktf.json) whose synthesized output names the stacks, with any ids, and holds environments built in code (default: the working directory).',
};
export const CDKTF_OUT_OPTION: OptionSpec = {
  name: 'cdktf-out',
  value: '<dir>',
  description: 'Synthesis output directory (default: "output" of the project\'s cdktf.json, else cdktf.out).',
};

/** Default synthesis directory of the project in `dir`. */
export function cdktfOutDir(dir: string): string {
  try {
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'cdktf.json'), 'utf8')) as { output?: string };
    if (cfg.output) return path.resolve(dir, cfg.output);
  } catch {
    // no cdktf.json: the default
  }
  return path.join(dir, 'cdktf.out');
}

export class CdktfProject {
  /** `--app-dir` (else the working directory) and `--cdktf-out` (else the project's output). */
  public static of(args: ParsedArgs, io: CliIo): CdktfProject {
    const dir = path.resolve(io.cwd, stringOption(args, 'app-dir') ?? '.');
    const out = stringOption(args, 'cdktf-out');
    return new CdktfProject(dir, out ? path.resolve(io.cwd, out) : cdktfOutDir(dir), io.cwd);
  }

  private app: SynthesizedApp | undefined | null;

  constructor(
    /** The project directory: where the app runs, local state files lie, scripts/toolchain/env.sh is looked for. */
    public readonly dir: string,
    public readonly outDir: string,
    private readonly cwd: string,
    /** What the app synthesized, when the caller has read it already (`validate` runs the app itself). */
    app?: SynthesizedApp,
  ) {
    this.app = app ?? null;
  }

  /** What the app synthesized, or undefined before the first `cdktf synth`. */
  public synthesized(): SynthesizedApp | undefined {
    if (this.app === null) this.app = readSynthesizedApp(this.outDir, this.cwd);
    return this.app;
  }

  /** Names of the environments the synthesized app recorded. */
  public recordedEnvironments(): string[] {
    const names = new Set((this.synthesized()?.stacks ?? []).flatMap((s) => Object.keys(s.records?.environments ?? {})));
    return [...names].sort();
  }
}
