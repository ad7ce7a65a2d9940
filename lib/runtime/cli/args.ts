/** A small argument parser: `--flag`, `--opt value`, `--opt=value`, `--` ends options. */
import { EXIT_BAD_CONFIG } from '../env-config';
import { CliError, usageError } from './errors';

export interface OptionSpec {
  /** Long name without dashes. */
  readonly name: string;
  /** Takes a value (`--out file`) or is a switch (`--force`). */
  readonly value?: string;
  readonly description: string;
}

export interface CommandSpec {
  readonly name: string;
  /** e.g. `<env> [cluster]`. */
  readonly usage: string;
  readonly summary: string;
  /** Paragraphs after the usage line. */
  readonly details: readonly string[];
  readonly options: readonly OptionSpec[];
  readonly minPositionals: number;
  readonly maxPositionals: number;
  readonly examples: readonly string[];
}

export interface ParsedArgs {
  readonly positionals: string[];
  readonly options: Record<string, string | true>;
  readonly help: boolean;
}

const HELP: OptionSpec = { name: 'help', description: 'Show this help.' };

export function parseArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const options: Record<string, string | true> = {};
  const positionals: string[] = [];
  let help = false;
  const known = [...spec.options, HELP];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      const opt = known.find((o) => o.name === name);
      if (!opt) throw usageError(spec.name, `unknown option --${name}`);
      if (opt.value) {
        let value: string | undefined;
        if (eq >= 0) value = arg.slice(eq + 1);
        else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[++i];
        if (value === undefined || value === '') throw usageError(spec.name, `option --${name} needs a value (${opt.value})`);
        options[name] = value;
      } else {
        if (eq >= 0) throw usageError(spec.name, `option --${name} takes no value`);
        options[name] = true;
      }
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) throw usageError(spec.name, `unknown option ${arg}`);
    positionals.push(arg);
  }
  if (!help) {
    if (positionals.length < spec.minPositionals) throw usageError(spec.name, `missing argument: ${spec.usage}`);
    if (positionals.length > spec.maxPositionals) {
      throw usageError(spec.name, `unexpected argument "${positionals[spec.maxPositionals]}"`);
    }
  }
  return { positionals, options, help };
}

/** `--help` text of one command. */
export function commandHelp(spec: CommandSpec): string {
  const opts = [...spec.options, HELP];
  const width = Math.max(...opts.map((o) => `--${o.name}${o.value ? ` ${o.value}` : ''}`.length));
  const lines = [
    `Usage: capi-openstack ${spec.name}${spec.usage ? ` ${spec.usage}` : ''} [options]`,
    '',
    ...wrap(spec.summary),
    ...spec.details.flatMap((d) => ['', ...wrap(d)]),
    '',
    'Options:',
    ...opts.map((o) => `  ${`--${o.name}${o.value ? ` ${o.value}` : ''}`.padEnd(width)}  ${o.description}`),
  ];
  if (spec.examples.length > 0) lines.push('', 'Examples:', ...spec.examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

/** Breaks a paragraph into lines of at most `width` characters at spaces. */
export function wrap(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const v = args.options[name];
  return typeof v === 'string' ? v : undefined;
}

/** A whole-number option within [min, max]; undefined when not given. Anything else is a usage error naming the option and the value. */
export function wholeNumberOption(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const raw = args.options[name];
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) throw new CliError(`--${name}: expected a whole number from ${min} to ${max}, found "${String(raw).slice(0, 20)}"`, EXIT_BAD_CONFIG);
  return value;
}
