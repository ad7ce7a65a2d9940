/** `capi-openstack <command>`: dispatch, help, and the one-line failure contract. */
import * as fs from 'fs';
import * as path from 'path';
import { escapeControlCharacters } from '../../config/control-characters';
import { commandHelp, CommandSpec, parseArgs, ParsedArgs } from './args';
import { footprintSpec, runFootprint } from './commands/footprint';
import { importTfvarsSpec, runImportTfvars } from './commands/import-tfvars';
import { kubeconfigSpec, runKubeconfig } from './commands/kubeconfig';
import { managementSpec, runManagement } from './commands/management';
import { manifestsSpec, runManifests } from './commands/manifests';
import { orphansSpec, runOrphans } from './commands/orphans';
import { runState, stateSpec } from './commands/state';
import { runValidate, validateSpec } from './commands/validate';
import { CliError, usageError } from './errors';
import { CliIo } from './io';

interface Command {
  readonly spec: CommandSpec;
  readonly run: (args: ParsedArgs, io: CliIo) => Promise<number>;
}

export const COMMANDS: readonly Command[] = [
  { spec: validateSpec, run: runValidate },
  { spec: importTfvarsSpec, run: runImportTfvars },
  { spec: footprintSpec, run: runFootprint },
  { spec: kubeconfigSpec, run: runKubeconfig },
  { spec: orphansSpec, run: runOrphans },
  { spec: manifestsSpec, run: runManifests },
  { spec: stateSpec, run: runState },
  { spec: managementSpec, run: runManagement },
];

export function toolHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.spec.name.length));
  return [
    'Usage: capi-openstack <command> [arguments] [options]',
    '',
    'Operator commands of capi-openstack-cdktf (Cluster API management and workload clusters on OpenStack).',
    'Deploying is `cdktf deploy <env>-*`; these commands check, migrate and inspect environments.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.spec.name.padEnd(width)}  ${c.spec.summary}`),
    '',
    'Run `capi-openstack <command> --help` for the arguments of a command.',
  ].join('\n');
}

/** Version of the installed package (package.json is three or four levels up: source tree or dist/). */
function packageVersion(): string {
  for (const rel of ['../../../package.json', '../../../../package.json']) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, rel), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'capi-openstack-cdktf' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return 'unknown';
}

/** Runs one command line; returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (!name || name === '--help' || name === '-h' || name === 'help') {
      const topic = name === 'help' ? rest[0] : undefined;
      const cmd = topic ? COMMANDS.find((c) => c.spec.name === topic) : undefined;
      if (topic && !cmd) throw usageError('', `unknown command "${topic}"`);
      io.out(cmd ? commandHelp(cmd.spec) : toolHelp());
      return name ? 0 : 2;
    }
    if (name === '--version' || name === '-V') {
      io.out(packageVersion());
      return 0;
    }
    const cmd = COMMANDS.find((c) => c.spec.name === name);
    if (!cmd) throw usageError('', `unknown command "${name}" (commands: ${COMMANDS.map((c) => c.spec.name).join(', ')})`);
    const args = parseArgs(cmd.spec, rest);
    if (args.help) {
      io.out(commandHelp(cmd.spec));
      return 0;
    }
    return await cmd.run(args, io);
  } catch (e) {
    // messages keep their own lines; any other control character (a value's \r, a terminal escape) is shown escaped
    if (e instanceof CliError) {
      io.err(shownLines(`error: ${e.message}`));
      return e.exitCode;
    }
    // Validation errors of lib/config carry their own one-screen message.
    if (e instanceof Error && e.name === 'EnvironmentConfigError') {
      io.err(shownLines(e.message));
      return 1;
    }
    io.err(shownLines(`error: ${e instanceof Error ? e.message : String(e)}`));
    return 1;
  }
}

function shownLines(message: string): string {
  return message.split('\n').map(escapeControlCharacters).join('\n');
}
