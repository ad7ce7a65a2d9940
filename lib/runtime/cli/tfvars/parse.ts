/**
 * Parses a tfvars file with HashiCorp's HCL parser (`@cdktf/hcl2json`, the Go HCL library compiled
 * to WebAssembly) or, for `*.tfvars.json`, as JSON.
 */
import { CliError } from '../errors';

type HclParse = (filename: string, contents: string) => Promise<Record<string, unknown>>;

let hclParse: HclParse | undefined;

/** Loaded on first use: the WebAssembly module costs ~0.2 s, other commands should not pay it. */
function hcl(): HclParse {
  if (!hclParse) {
    // A plain require keeps the package's DOM-flavoured typings out of this program.
    hclParse = (loadOptional('@cdktf/hcl2json') as { parse: HclParse }).parse;
  }
  return hclParse;
}

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
    throw new CliError(`import-tfvars needs the HCL parser ${name}, an optional dependency that is not installed: run \`npm install ${name}@0.21\` in this project (or convert a *.tfvars.json file, which needs no parser)`);
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
    try {
      values = await hcl()(fileName, prepared);
    } catch (e) {
      throw new CliError(hclErrorLine(fileName, (e as Error).message));
    }
    for (const [k, v] of Object.entries(values)) {
      // Blocks (`name { … }`) come back as lists of objects; tfvars has attributes only.
      if (Array.isArray(v) && v.length > 0 && v.every((i) => i && typeof i === 'object' && !Array.isArray(i)) && !new RegExp(`^\\s*${k}\\s*=`, 'm').test(text)) {
        throw new CliError(`${fileName}: "${k}" is a block, but a tfvars file only assigns variables (name = value)`);
      }
    }
  }
  const lines: Record<string, number> = {};
  const all = text.split(/\r?\n/);
  for (const key of Object.keys(values)) {
    const k = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const re = json ? new RegExp(`"${k}"\\s*:`) : new RegExp(`^\\s*"?${k}"?\\s*=`);
    const i = all.findIndex((l) => re.test(l));
    if (i >= 0) lines[key] = i + 1;
  }
  return { values, lines };
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
