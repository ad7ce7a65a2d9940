/** `import-tfvars <environment-X.tfvars>`: an environment file from the old tool's settings. */
import { ENVIRONMENT_NAME } from '../../../config/environment-name';
import * as fs from 'fs';
import * as path from 'path';
import { MAX_SETTINGS_FILE_BYTES, readBoundedFile } from '../../../config/bounded-file';
import { escapeControlCharacters, shownText } from '../../../config/control-characters';
import { EnvironmentConfigError } from '../../../config/errors';
import { parseEnvironment } from '../../../config/load';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { DEFAULT_ENVIRONMENTS_DIR, displayPath } from '../environment-files';
import { CliError } from '../errors';
import { CliIo } from '../io';
import { convertTfvars } from '../tfvars/convert';
import { HCL_PARSER_INSTALL, HCL_PARSER_PACKAGE, parseTfvars } from '../tfvars/parse';
import { renderEnvironmentYaml } from '../tfvars/render';

export const importTfvarsSpec: CommandSpec = {
  name: 'import-tfvars',
  usage: '<environment-X.tfvars>',
  summary: 'Convert a settings file of the old terraform + Makefile bootstrap into an environment file.',
  details: [
    `Needs the HCL parser ${HCL_PARSER_PACKAGE}, an optional peer dependency that installing capi-openstack-cdktf does not add: \`${HCL_PARSER_INSTALL}\` in the project (a *.tfvars.json file needs no parser).`,
    'The file is read with the HCL parser (a *.tfvars.json file as JSON). Each setting is carried over to its new field; every setting that cannot be (unsupported, unknown, placeholder, outside the supported versions) is reported on stderr with the reason and listed at the top of the written file. The result is validated like `capi-openstack validate` before it is written; an invalid result is not written.',
    'Relative file names inside the old file (containerd_registry_files) are looked up next to it, in its parent directory and in the working directory.',
    'Exit code 0 when the file was written (even with reported settings), 1 otherwise.',
  ],
  options: [
    { name: 'name', value: '<env>', description: 'Environment name (default: X of environment-X.tfvars). It is also the file name.' },
    { name: 'out', value: '<file>', description: `Output file (default: ${DEFAULT_ENVIRONMENTS_DIR}/<env>.yaml).` },
    { name: 'cloud', value: '<entry>', description: 'clouds.yaml entry to use instead of cloud_provider.' },
    { name: 'force', description: 'Overwrite an existing output file.' },
  ],
  minPositionals: 1,
  maxPositionals: 1,
  examples: [
    'capi-openstack import-tfvars terraform/environments/environment-mycloud.tfvars',
    'capi-openstack import-tfvars old.tfvars --name lab --cloud lab-admin',
  ],
};


export interface ImportResult {
  readonly file: string;
  readonly carried: number;
  readonly reported: number;
}

export async function runImportTfvars(args: ParsedArgs, io: CliIo): Promise<number> {
  await importTfvars(args, io);
  return 0;
}

export async function importTfvars(args: ParsedArgs, io: CliIo): Promise<ImportResult> {
  const source = path.resolve(io.cwd, args.positionals[0]);
  const sourceName = displayPath(io.cwd, source);
  const shownSource = escapeControlCharacters(sourceName);
  if (!fs.existsSync(source)) throw new CliError(`${shownSource} does not exist`);
  if (!fs.statSync(source).isFile()) throw new CliError(`${shownSource} is not a file (give a .tfvars or .tfvars.json file)`);
  // read with the loader's guards: a FIFO swapped in is not waited on, a huge file is refused before parsing
  const read = readBoundedFile(source, 'tfvars file', MAX_SETTINGS_FILE_BYTES);
  if ('problem' in read) throw new CliError(read.problem);

  const outOption = stringOption(args, 'out');
  const name = environmentName(stringOption(args, 'name'), outOption, source);
  const out = path.resolve(io.cwd, outOption ?? path.join(DEFAULT_ENVIRONMENTS_DIR, `${name}.yaml`));
  const outName = displayPath(io.cwd, out);
  if (fs.existsSync(out) && args.options.force !== true) throw new CliError(`${escapeControlCharacters(outName)} exists; pass --force to overwrite it`);

  io.err(`import-tfvars: reading ${shownSource}`);
  const parsed = await parseTfvars(shownSource, read.bytes.toString('utf8'));
  const dir = path.dirname(source);
  const conversion = convertTfvars(parsed.values, {
    cloud: stringOption(args, 'cloud'),
    sourceName,
    fileBases: [...new Set([dir, path.dirname(dir), io.cwd])],
  });

  // Source order (the HCL parser returns keys sorted by name).
  const line = (key: string) => parsed.lines[key] ?? Number.MAX_SAFE_INTEGER;
  const outcomes = [...conversion.outcomes].sort((a, b) => line(a.key) - line(b.key));
  const reported = outcomes.filter((o) => o.status === 'reported');
  for (const o of reported) {
    const where = parsed.lines[o.key] ? `${shownSource}:${parsed.lines[o.key]}` : shownSource;
    for (const note of o.notes) io.err(`${where}: ${shownText(o.key, 200)}: ${shownText(note, 2000)}`);
  }

  const yaml = renderEnvironmentYaml({
    environment: conversion.environment,
    comments: conversion.comments,
    outcomes,
    sourceName: escapeControlCharacters(path.basename(source)),
    environmentName: name,
  });
  try {
    // Same checks as synthesis, against the name the file will have.
    parseEnvironment(yaml, out);
  } catch (e) {
    if (!(e instanceof EnvironmentConfigError)) throw e;
    // Name the old setting behind each field: the operator fixes the tfvars (or edits the result by hand).
    const oldKey = (field: string) => outcomes.find((o) => o.fields.some((f) => field === f || field.startsWith(`${f}.`) || field.startsWith(`${f}[`)))?.key;
    // the issues' fields and messages are already cut and escaped (EnvironmentConfigError)
    const lines = e.issues.map((i) => `  ${i.path}${oldKey(i.path) ? ` (old ${shownText(oldKey(i.path)!, 200)})` : ''}: ${i.message}`);
    throw new CliError(`the converted settings of ${shownSource} do not form a valid environment, nothing written:\n${lines.join('\n')}`);
  }
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, yaml);

  const carried = outcomes.length - reported.length;
  if (reported.length > 0) {
    io.err(`Not carried over (see above and the comment at the top of ${escapeControlCharacters(outName)}): ${shownText(reported.map((o) => o.key).join(', '), 2000)}`);
  }
  io.out(`wrote ${escapeControlCharacters(outName)}: ${carried} settings carried over, ${reported.length} reported`);
  return { file: out, carried, reported: reported.length };
}

function environmentName(explicit: string | undefined, out: string | undefined, source: string): string {
  const fromOut = out ? path.basename(out).replace(/\.ya?ml$/, '') : undefined;
  if (explicit && fromOut && explicit !== fromOut) {
    throw new CliError(`--name ${explicit} and --out ${out} disagree: the environment name is the file name (use --out <dir>/${explicit}.yaml)`);
  }
  if (out && !/\.ya?ml$/.test(out)) throw new CliError(`--out ${out}: expected a .yaml file name (the file name is the environment name)`);
  const derived = path
    .basename(source)
    .replace(/\.tfvars(\.json)?$/i, '')
    .replace(/^environment-/, '')
    .toLowerCase();
  const name = explicit ?? fromOut ?? derived;
  if (!ENVIRONMENT_NAME.test(name)) {
    const hint = explicit || fromOut ? '' : ` (derived from ${path.basename(source)}; pass --name <env>)`;
    throw new CliError(`"${name}" is not a usable environment name: expected lowercase letters, digits and "-", at most 24, starting with a letter${hint}`);
  }
  return name;
}
