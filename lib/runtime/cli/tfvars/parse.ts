/**
 * Parses a tfvars file with HashiCorp's HCL parser (`@cdktf/hcl2json`, the Go HCL library compiled
 * to WebAssembly) or, for `*.tfvars.json`, as JSON.
 */
import { shownText } from '../../../config/control-characters';
import { CliError } from '../errors';

type HclParse = (filename: string, contents: string) => Promise<Record<string, unknown>>;

let hclParse: HclParse | undefined;

/** Loaded on first use: the WebAssembly module costs ~0.2 s, other commands should not pay it. */
function hcl(): HclParse {
  if (!hclParse) {
    // A plain require keeps the package's DOM-flavoured typings out of this program.
    hclParse = (loadOptional(HCL_PARSER_PACKAGE) as { parse: HclParse }).parse;
  }
  return hclParse;
}

/** The HCL parser package: an optional peer dependency, named by the command's help and its error. */
export const HCL_PARSER_PACKAGE = '@cdktf/hcl2json';
/** What to install it with (the version cdktf 0.21 ships). */
export const HCL_PARSER_INSTALL = `npm install ${HCL_PARSER_PACKAGE}@0.21`;

/**
 * An optional peer dependency of the package (only this command needs it, and it weighs 1.9 MB):
 * a library user who never converts a tfvars file does not install it.
 */
function loadOptional(name: string): unknown {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !(e as Error).message.includes(name)) throw e;
    throw new CliError(`import-tfvars needs the HCL parser ${name}, an optional dependency that is not installed: run \`${HCL_PARSER_INSTALL}\` in this project (or convert a *.tfvars.json file, which needs no parser)`);
  }
}

/**
 * `name = <number>`: an unfilled placeholder of the old sample file, written without quotes (not
 * HCL). Quoted before parsing so the conversion can report it like the quoted placeholders.
 */
const BARE_PLACEHOLDER = /^(\s*[A-Za-z_][A-Za-z0-9_-]*\s*=\s*)(<[^<>"\n]*>)(\s*(#.*)?)$/gm;

export interface ParsedTfvars {
  readonly values: Record<string, unknown>;
  /** 1-based line of each top-level key, when found. */
  readonly lines: Readonly<Record<string, number>>;
}

export async function parseTfvars(fileName: string, text: string): Promise<ParsedTfvars> {
  let values: Record<string, unknown>;
  const json = /\.json$/i.test(fileName);
  if (json) {
    try {
      values = JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new CliError(`${fileName}: not valid JSON: ${(e as Error).message}`);
    }
    if (!values || typeof values !== 'object' || Array.isArray(values)) throw new CliError(`${fileName}: expected a JSON object of variables`);
  } else {
    const prepared = text.replace(BARE_PLACEHOLDER, (_m, head: string, value: string, tail: string) => `${head}"${value}"${tail}`);
    values = await parseHcl(fileName, prepared);
  }
  const all = text.split(/\r?\n/);
  // the first line naming each key, found in one pass over the file (a search per key took 65 s for 20 000 variables)
  const firstLines = json ? firstLinesOf(all, /"((?:[^"\\]|\\.)*)"\s*:/g) : firstLinesOf(all, /^\s*"?([^\s"=]+)"?\s*=/g);
  if (!json) {
    for (const [k, v] of Object.entries(values)) {
      // Blocks (`name { … }`) come back as lists of objects; tfvars has attributes only.
      if (Array.isArray(v) && v.length > 0 && v.every((i) => i && typeof i === 'object' && !Array.isArray(i)) && !firstLines.has(k)) {
        throw new CliError(`${fileName}: "${shownText(k, 80)}" is a block, but a tfvars file only assigns variables (name = value)`);
      }
    }
  }
  const reserved = Object.keys(values).find((k) => RESERVED_KEYS.has(k));
  if (reserved) {
    const at = all.findIndex((l) => l.includes(reserved));
    throw new CliError(`${fileName}${at >= 0 ? `:${at + 1}` : ''}: "${reserved}" is not a variable of the old tool and is reserved in JavaScript objects; remove it`);
  }
  const lines: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const key of Object.keys(values)) {
    const line = firstLines.get(key);
    if (line !== undefined) lines[key] = line;
  }
  return { values, lines };
}

/** The first (1-based) line on which `pattern` (global, group 1 = the key) finds each key. */
function firstLinesOf(all: readonly string[], pattern: RegExp): Map<string, number> {
  const found = new Map<string, number>();
  all.forEach((line, i) => {
    for (const m of line.matchAll(pattern)) if (!found.has(m[1])) found.set(m[1], i + 1);
  });
  return found;
}

/** The one WebAssembly call made here (the compiler's libraries leave WebAssembly out). */
interface WasmGlobal {
  readonly WebAssembly: { readonly Memory: new (descriptor: { initial: number }) => unknown };
}

/** Keys that would reach object prototypes: never a variable of the old tool. */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The HCL parser starts its WebAssembly module on a promise of its own: when that fails (a memory
 * limit: "Cannot allocate Wasm memory") it surfaced as an unhandled rejection that killed the
 * process. It is caught here and reported as the reason the file could not be read.
 */
async function parseHcl(fileName: string, text: string): Promise<Record<string, unknown>> {
  const cannotStart = (reason: unknown) =>
    new CliError(
      `${fileName}: the HCL parser (WebAssembly) could not start: ${reason instanceof Error ? reason.message : String(reason)}; raise the memory limit (ulimit -v) or convert the file to JSON (*.tfvars.json), which needs no WebAssembly`,
    );
  try {
    // WebAssembly reserves its address space up front; asking first keeps the parser from starting
    // at all (once started and failed, its bridge polls forever and the process never exits)
    new (globalThis as unknown as WasmGlobal).WebAssembly.Memory({ initial: 1 });
  } catch (e) {
    throw cannotStart(e);
  }
  let onStartFailure: ((reason: unknown) => void) | undefined;
  const startFailed = new Promise<never>((_, reject) => {
    onStartFailure = (reason) => reject(cannotStart(reason));
  });
  process.on('unhandledRejection', onStartFailure!);
  try {
    return await Promise.race([hcl()(fileName, text), startFailed]);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(hclErrorLine(fileName, (e as Error).message));
  } finally {
    process.off('unhandledRejection', onStartFailure!);
  }
}

/**
 * `parse config: [f.tfvars:23,24-25: Invalid expression; Expected the start of an expression, …]`
 * → `f.tfvars:23:24: Invalid expression; Expected the start of an expression, …`
 */
export function hclErrorLine(fileName: string, message: string): string {
  const inner = /^\s*parse config:\s*\[(.*)\]\s*$/s.exec(message)?.[1] ?? message;
  const first = inner.split(/\]?,\s*(?=[^\s,]+:\d+,\d+)/)[0].replace(/\s+/g, ' ').trim();
  const m = /^(.*?):(\d+),(\d+)(?:-\d+)?:\s*(.*)$/.exec(first);
  if (m) return `${fileName}:${m[2]}:${m[3]}: not valid HCL: ${m[4]}`;
  return `${fileName}: not valid HCL: ${first}`;
}
