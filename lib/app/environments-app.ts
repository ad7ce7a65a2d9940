import * as path from 'path';
import { App, AppConfig } from 'cdktf';
import { formatWarning } from '../config/errors';
import { loadEnvironments } from '../config/load';
import { EnvironmentStacks, buildEnvironmentStacks } from '../stacks/environment-stacks';
import { removeTerraformVersionProbes } from '../terraform/terraform-version-probes';
import { warningsShownByApp } from '../terraform/config-warnings';

export interface EnvironmentsAppProps {
  /**
   * Folder holding `<name>.yaml` environment files.
   * @default `$ENVIRONMENTS_DIR`, else `./environments`
   */
  readonly environmentsDir?: string;
  /**
   * Environments to build; an unknown name is an error.
   * @default the comma-separated names in `$ENVIRONMENT`, else every environment file
   */
  readonly only?: readonly string[];
  /**
   * Receives one line per warning of the environment files (an end-of-life Kubernetes minor, a
   * workload API open to anywhere by default).
   * @default writes the line to stderr
   */
  readonly onWarning?: (line: string) => void;
  /**
   * Passed to the cdktf App (outdir, context…).
   * @default {}
   */
  readonly appConfig?: AppConfig;
}

/** Names listed in a comma-separated variable such as `ENVIRONMENT=a,b`. */
export function environmentNamesFrom(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The ready app: one `<env>-management` stack (and `<env>-<cluster>` per cluster) for every
 * environment file. The files are loaded and validated before the App exists, so invalid input
 * throws without writing anything to the output directory.
 */
export class EnvironmentsApp {
  public readonly app: App;
  public readonly environments: Readonly<Record<string, EnvironmentStacks>>;

  constructor(props: EnvironmentsAppProps = {}) {
    const dir = props.environmentsDir ?? process.env.ENVIRONMENTS_DIR ?? path.join(process.cwd(), 'environments');
    const configs = loadEnvironments(dir, [...(props.only ?? environmentNamesFrom(process.env.ENVIRONMENT))]);
    const warn = props.onWarning ?? ((line: string) => process.stderr.write(`${line}\n`));
    for (const env of configs) {
      for (const w of env.warnings) warn(formatWarning(path.relative(process.cwd(), env.file) || env.file, w));
      // printed once here, before synthesis: the constructs leave them out of their annotations
      warningsShownByApp(env);
    }
    this.app = new App(props.appConfig);
    const stacks: Record<string, EnvironmentStacks> = {};
    for (const env of configs) stacks[env.name] = buildEnvironmentStacks(this.app, env);
    this.environments = stacks;
  }

  public synth(): void {
    // cdktf would run `terraform version` once per terraform_data on every cdktf command
    removeTerraformVersionProbes(this.app);
    this.app.synth();
  }
}
