/**
 * Whether the local services a suite needs are running: the suite runs when they are (or when
 * LOCAL_<SERVICE>_REQUIRED=1 makes their absence a failure), and is skipped with a message otherwise.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { ROOT } from './workload-process';

const SERVICES = {
  'local-kube': { what: 'the local kube-apiserver', required: 'LOCAL_KUBE_REQUIRED' },
  'local-cloud': { what: 'the local OpenStack', required: 'LOCAL_CLOUD_REQUIRED' },
  'local-vm': { what: 'the management VM stand-in\'s site (test dockerd, registry, site mirror)', required: 'LOCAL_VM_REQUIRED' },
} as const;

export type LocalService = keyof typeof SERVICES;

export interface ServiceGate {
  /** describe, or describe.skip when a service is missing and not required. */
  readonly suite: jest.Describe;
  /** Throws, in beforeAll, when a required service is not running. */
  requireRunning(): void;
}

export function serviceGate(suiteName: string, services: readonly LocalService[]): ServiceGate {
  const status = services.map((s) => {
    const r = spawnSync(path.join(ROOT, 'scripts', s, 'status'), [], { encoding: 'utf8', timeout: 60_000 });
    return { s, up: r.status === 0, detail: `scripts/${s}/status exited ${r.status ?? r.signal}` };
  });
  const missing = status
    .filter((x) => !x.up && process.env[SERVICES[x.s].required] !== '1')
    .map((x) => `${SERVICES[x.s].what} is not running (${x.detail}; start it with scripts/${x.s}/start; ${SERVICES[x.s].required}=1 makes this a failure)`);
  if (missing.length > 0) console.warn(`${suiteName} skipped: ${missing.join('; ')}`);
  return {
    suite: missing.length === 0 ? describe : describe.skip,
    requireRunning() {
      for (const x of status) {
        if (!x.up) throw new Error(`${SERVICES[x.s].required}=1 but ${SERVICES[x.s].what} is not running (${x.detail}): run scripts/${x.s}/start`);
      }
    },
  };
}
