/**
 * What a cdktf app synthesized, as the operator commands read it: the stacks of the manifest
 * (`<out>/manifest.json`), each with its working directory, its Terraform backend and the records
 * the cluster constructs wrote into it (lib/config/stack-records.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { StateLocation } from '../../config/state-backend';
import { readStackRecords, StackRecords, StackRecordsError } from '../../config/stack-records';
import { displayPath } from './io';
import { CliError } from './errors';

/** Where a stack keeps its state, as its `cdk.tf.json` says. */
export type StackBackend =
  | { readonly kind: 's3'; readonly location: StateLocation; /** Terraform's lock object next to the state (`use_lockfile`). */ readonly lockfile: boolean }
  | { readonly kind: 'local' }
  /** Another backend (remote, gcs…): the commands that read the store refuse it by name. */
  | { readonly kind: 'other'; readonly name: string }
  /** An S3 backend the commands cannot reach (no endpoint to talk to): says why. */
  | { readonly kind: 'unusable'; readonly name: string; readonly why: string };

/** A message a construct attached at synthesis (cdktf `Annotations`), as the manifest keeps it. */
export interface StackAnnotation {
  readonly level: 'info' | 'warning' | 'error';
  readonly constructPath: string;
  readonly message: string;
}

export interface SynthesizedStack {
  readonly id: string;
  readonly annotations: readonly StackAnnotation[];
  /** Where Terraform runs for it (`<out>/stacks/<id>`). */
  readonly dir: string;
  readonly backend: StackBackend;
  /** What the clusters of this library in it recorded; undefined for other stacks. */
  readonly records?: StackRecords;
  /** The stack file, as shown in messages. */
  readonly file: string;
}

export interface SynthesizedApp {
  readonly outDir: string;
  readonly stacks: readonly SynthesizedStack[];
}

interface ManifestStack {
  readonly name?: unknown;
  readonly annotations?: unknown;
  readonly synthesizedStackPath?: unknown;
  readonly workingDirectory?: unknown;
}

/**
 * The app synthesized into `outDir`, or undefined when there is no manifest (never synthesized).
 * @param cwd for the paths shown in messages
 */
export function readSynthesizedApp(outDir: string, cwd: string): SynthesizedApp | undefined {
  const manifestFile = path.join(outDir, 'manifest.json');
  if (!fs.existsSync(manifestFile)) return undefined;
  let manifest: { stacks?: Record<string, ManifestStack> };
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  } catch (e) {
    throw new CliError(`${displayPath(cwd, manifestFile)} is not JSON (${(e as Error).message.slice(0, 80)}): run \`cdktf synth\` again`);
  }
  if (!manifest || typeof manifest.stacks !== 'object' || manifest.stacks === null) {
    throw new CliError(`${displayPath(cwd, manifestFile)} lists no stacks (expected "stacks": {…}): run \`cdktf synth\` again`);
  }
  const stacks: SynthesizedStack[] = [];
  for (const [id, entry] of Object.entries(manifest.stacks)) {
    const rel = typeof entry?.synthesizedStackPath === 'string' ? entry.synthesizedStackPath : path.join('stacks', id, 'cdk.tf.json');
    const file = path.resolve(outDir, rel);
    // a path that leaves the output directory is not cdktf's
    if (path.relative(outDir, file).startsWith('..')) throw new CliError(`${displayPath(cwd, manifestFile)}: stack ${id}: synthesizedStackPath ${rel} is outside ${displayPath(cwd, outDir)}`);
    const dir = typeof entry?.workingDirectory === 'string' ? path.resolve(outDir, entry.workingDirectory) : path.dirname(file);
    const shown = displayPath(cwd, file);
    const annotations = annotationsOf(entry?.annotations);
    if (!fs.existsSync(file)) {
      // HCL output (cdk.tf) or a partial synth: nothing to read, the stack is listed without records
      stacks.push({ id, dir, annotations, backend: { kind: 'other', name: 'unknown' }, file: shown });
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      throw new CliError(`${shown} is not JSON (${(e as Error).message.slice(0, 80)}): run \`cdktf synth\` again`);
    }
    let records: StackRecords | undefined;
    try {
      records = readStackRecords(json, shown);
    } catch (e) {
      if (e instanceof StackRecordsError) throw new CliError(e.message);
      throw e;
    }
    stacks.push({ id, dir, annotations, backend: backendOf(json), records, file: shown });
  }
  return { outDir, stacks };
}

const LEVELS: Readonly<Record<string, StackAnnotation['level']>> = { '@cdktf/info': 'info', '@cdktf/warn': 'warning', '@cdktf/error': 'error' };

function annotationsOf(raw: unknown): StackAnnotation[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((a: { level?: unknown; constructPath?: unknown; message?: unknown }) =>
    typeof a?.level === 'string' && LEVELS[a.level] && typeof a.message === 'string'
      ? [{ level: LEVELS[a.level], constructPath: typeof a.constructPath === 'string' ? a.constructPath : '', message: a.message }]
      : [],
  );
}

function backendOf(json: unknown): StackBackend {
  const backends = (json as { terraform?: { backend?: Record<string, unknown> } })?.terraform?.backend;
  const [name, config] = Object.entries(backends ?? {})[0] ?? ['local', {}];
  if (name === 'local') return { kind: 'local' };
  if (name !== 's3') return { kind: 'other', name };
  const c = (config ?? {}) as { bucket?: unknown; key?: unknown; region?: unknown; endpoint?: unknown; endpoints?: { s3?: unknown }; use_lockfile?: unknown };
  const endpoint = typeof c.endpoints?.s3 === 'string' ? c.endpoints.s3 : typeof c.endpoint === 'string' ? c.endpoint : undefined;
  if (typeof c.bucket !== 'string' || typeof c.key !== 'string') return { kind: 'unusable', name, why: 'it names no bucket or key' };
  if (!endpoint) return { kind: 'unusable', name, why: 'it names no endpoint (endpoints.s3)' };
  const key = c.key;
  return {
    kind: 's3',
    location: { endpoint: endpoint.replace(/\/+$/, ''), bucket: c.bucket, region: typeof c.region === 'string' ? c.region : 'us-east-1', key, lockKey: `${key}.tflock` },
    lockfile: c.use_lockfile === true,
  };
}
