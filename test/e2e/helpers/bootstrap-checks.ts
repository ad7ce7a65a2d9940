/** Readings of the bootstrap e2e: the VM's bootstrap log and the API server's admission metrics. */

/** Seconds of each step of the bootstrap, in the order they ran (`<== <step> done in <n>s` lines). */
export function bootstrapStepSeconds(bootstrapLog: string): Record<string, number> {
  const steps: Record<string, number> = {};
  for (const m of bootstrapLog.matchAll(/<== (\S+) done in (\d+)s/g)) steps[m[1]] = Number(m[2]);
  return steps;
}

/**
 * When each step started and ended, in seconds after `bootstrap started` (`==> <step>` and
 * `<== <step> done` lines): steps of a side-by-side stage overlap, so their durations alone do not
 * say where the time went.
 */
export function bootstrapTimeline(bootstrapLog: string): Record<string, { start: number; end?: number }> {
  const at = (stamp: string) => Date.parse(stamp) / 1000;
  const origin = /^(\S+) \[capi-bootstrap\] bootstrap started$/m.exec(bootstrapLog);
  if (!origin) return {};
  const t0 = at(origin[1]);
  const steps: Record<string, { start: number; end?: number }> = {};
  for (const m of bootstrapLog.matchAll(/^(\S+) \[capi-bootstrap\] (==>|<==) (\S+)/gm)) {
    if (m[2] === '==>') steps[m[3]] = { start: at(m[1]) - t0 };
    else if (steps[m[3]]) steps[m[3]].end = at(m[1]) - t0;
  }
  return steps;
}

/** Admission webhook requests the API server made, by webhook name (all outcomes), from its /metrics text. */
export function admissionCounts(metrics: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const m of metrics.matchAll(/^apiserver_admission_webhook_request_total\{([^}]*)\} (\d+(?:\.\d+)?(?:e[+-]?\d+)?)$/gm)) {
    const name = /(?:^|,)name="([^"]+)"/.exec(m[1])?.[1];
    if (name) counts[name] = (counts[name] ?? 0) + Number(m[2]);
  }
  return counts;
}

/** Requests per webhook between two readings (webhooks that were not called are left out). */
export function webhookCallsBetween(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([name, n]) => [name, n - (before[name] ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** Names of the Deployments (items of a `kubectl get deployments -o json`) without Available=True. */
export function unavailableDeployments(items: any[]): string[] {
  return items
    .filter((d) => !(d.status?.conditions ?? []).some((c: any) => c.type === 'Available' && c.status === 'True'))
    .map((d) => `${d.metadata.namespace}/${d.metadata.name}`);
}

/** A container that restarted, from a `kubectl get pods -o json`. */
export interface RestartedContainer {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly restarts: number;
}

/** Containers (items of a `kubectl get pods -o json`) that restarted. */
export function restartedContainers(items: any[]): RestartedContainer[] {
  return items.flatMap((p) => (p.status?.containerStatuses ?? [])
    .filter((c: any) => c.restartCount > 0)
    .map((c: any) => ({ namespace: p.metadata.namespace, pod: p.metadata.name, container: c.name, restarts: c.restartCount })));
}

/** Containers that restarted, as `namespace/pod/container ×N`. */
export function containerRestarts(items: any[]): string[] {
  return restartedContainers(items).map((c) => `${c.namespace}/${c.pod}/${c.container} ×${c.restarts}`);
}

/**
 * The line of a container's previous log saying that it could not connect to a Service address
 * (port 443, the API server's Service): a pod started before kube-proxy had routed it. A starved
 * API server answers slowly, but its connections are still accepted: this line is not load.
 */
export function serviceDialTimeout(previousLog: string): string | undefined {
  return previousLog.split('\n').find((l) => /dial tcp \[?[0-9a-fA-F.:]+\]?:443: i\/o timeout/.test(l));
}
