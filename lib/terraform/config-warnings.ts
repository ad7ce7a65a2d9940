import * as path from 'path';
import { Annotations } from 'cdktf';
import { Construct } from 'constructs';
import { ConfigIssue, describeWarning } from '../config/errors';
import { EnvironmentConfig } from '../config/resolve';

/** Environments whose warnings their app already printed (EnvironmentsApp: one line each, before synthesis). */
const shownByApp = new WeakSet<EnvironmentConfig>();

/** Marks the environment's warnings as printed, so the constructs do not repeat them as annotations. */
export function warningsShownByApp(env: EnvironmentConfig): void {
  shownByApp.add(env);
}

/**
 * Adds the environment's warnings that `select` picks (an open API, a Kubernetes minor near its
 * end of life…) to the construct as cdktf warnings, which `cdktf synth` prints for any app with the
 * construct path (`WARN [stack/Id]: <file>:<line>:<column>: <field>: <message>`).
 */
export function annotateConfigWarnings(scope: Construct, env: EnvironmentConfig, select: (w: ConfigIssue) => boolean): void {
  if (shownByApp.has(env)) return;
  const file = path.isAbsolute(env.file) ? path.relative(process.cwd(), env.file) || env.file : env.file;
  for (const w of env.warnings.filter(select)) Annotations.of(scope).addWarning(describeWarning(file, w));
}
