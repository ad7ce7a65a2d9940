/** `footprint <env>`: what an environment will consume, as a table or JSON. */
import { formatWarning } from '../../../config/errors';
import { CommandSpec, ParsedArgs, stringOption } from '../args';
import { APP_DIR_OPTION, CDKTF_OUT_OPTION, CdktfProject } from '../cdktf-project';
import { DEFAULT_ENVIRONMENTS_DIR, locateEnvironment } from '../environment-files';
import { CliIo } from '../io';
import { computeFootprint, DISKLESS_ROOT_VOLUME_GB, Footprint, FootprintRow } from '../footprint/footprint';
import { renderTable } from '../footprint/table';

export const footprintSpec: CommandSpec = {
  name: 'footprint',
  usage: '<env>',
  summary: 'Show what an environment will consume: servers (vCPU, RAM), volumes, floating IPs, load balancers, server groups, security groups.',
  details: [
    'Computed from the environment file alone, no cloud access. vCPU and RAM come from SCS flavor names (SCS-2V-4 = 2 vCPUs, 4 GiB; SCS-4V-16-50s adds a 50 GB disk); other flavor names show "?". Use it to check quotas before `cdktf deploy`.',
    '<env> is an environment name (looked up in --dir, else among the environments the app recorded when it synthesized: one built in code needs no file) or a path to its YAML file.',
  ],
  options: [
    { name: 'dir', value: '<directory>', description: `Directory of the environment files (default: ./${DEFAULT_ENVIRONMENTS_DIR}).` },
    { name: 'json', description: 'Print machine-readable JSON instead of the table.' },
    APP_DIR_OPTION,
    CDKTF_OUT_OPTION,
  ],
  minPositionals: 1,
  maxPositionals: 1,
  examples: ['capi-openstack footprint example', 'capi-openstack footprint prod --json | jq .totals'],
};

export async function runFootprint(args: ParsedArgs, io: CliIo): Promise<number> {
  const located = locateEnvironment(io, stringOption(args, 'dir') ?? DEFAULT_ENVIRONMENTS_DIR, args.positionals[0], CdktfProject.of(args, io));
  const { config: env, shown } = located;
  for (const w of env.warnings) io.err(formatWarning(shown, w));
  const fp = computeFootprint(env);
  if (args.options.json === true) {
    io.out(JSON.stringify(fp, null, 2));
    return 0;
  }
  io.out(renderFootprint(fp, located.display));
  return 0;
}

const num = (v: number | null | undefined, unit = ''): string => (v === undefined ? '' : v === null ? '?' : `${v}${unit}`);

export function renderFootprint(fp: Footprint, fileName: string): string {
  const columns = [
    { title: 'SCOPE' },
    { title: 'RESOURCE' },
    { title: 'DETAIL' },
    { title: 'COUNT', align: 'right' as const },
    { title: 'VCPU', align: 'right' as const },
    { title: 'RAM GiB', align: 'right' as const },
    { title: 'VOLUME GB', align: 'right' as const },
  ];
  const row = (r: FootprintRow) => [r.scope, r.resource, r.detail, String(r.count), num(r.vcpus), num(r.ramGiB), num(r.volumeGb)];
  const plus = (incomplete: boolean) => (incomplete ? '+?' : '');
  const totals = fp.totals
    .filter((t) => t.count > 0)
    .map((t) => ['total', t.resource, '', String(t.count), t.vcpus === undefined ? '' : `${t.vcpus}${plus(t.incomplete)}`, t.ramGiB === undefined ? '' : `${t.ramGiB}${plus(t.incomplete)}`, t.volumeGb === undefined ? '' : `${t.volumeGb}${plus(t.incomplete)}`]);
  const lines = [
    `Footprint of environment ${fp.environment} (${fileName}, cloud ${fp.cloud}, resources named ${fp.resourcePrefix}-*)`,
    '',
    renderTable(columns, fp.rows.map(row), totals),
  ];
  const notes: string[] = [];
  if (fp.unknownFlavors.length > 0) {
    notes.push(
      `? = size unknown: ${fp.unknownFlavors.join(', ')} ${fp.unknownFlavors.length === 1 ? 'is not an SCS flavor name' : 'are not SCS flavor names'} (check \`openstack flavor show\`); a root volume of ${DISKLESS_ROOT_VOLUME_GB} GB per server is added when such a flavor has no disk.`,
    );
  }
  if (fp.skippedClusters.length > 0) notes.push(`Not created (controlPlane.count 0): ${fp.skippedClusters.join(', ')}.`);
  notes.push('Not counted: volumes and load balancers that workloads create later (PersistentVolumeClaims, Services of type LoadBalancer).');
  lines.push('', ...notes);
  return lines.join('\n');
}
