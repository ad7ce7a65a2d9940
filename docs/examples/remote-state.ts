import { HttpBackend, TerraformStack } from 'cdktf';
import { EnvironmentsApp } from '../../lib';

/** Where the state of every stack goes: GitLab's Terraform state of one project. */
export interface GitLabStateSettings {
  /** The project's API URL, e.g. https://gitlab.example.com/api/v4/projects/42 */
  readonly projectApiUrl: string;
}

/**
 * Gives every stack of the app its own GitLab state, named after the stack (`<env>-management`,
 * `<env>-<cluster>`: unique in the app), locked by GitLab while a plan or apply runs. Credentials are not in the code: Terraform reads TF_HTTP_USERNAME and
 * TF_HTTP_PASSWORD (in GitLab CI: `gitlab-ci-token` and $CI_JOB_TOKEN).
 */
export function useGitLabState(envApp: EnvironmentsApp, settings: GitLabStateSettings): void {
  const base = settings.projectApiUrl.replace(/\/+$/, '');
  for (const stacks of Object.values(envApp.environments)) {
    const all: TerraformStack[] = [...(stacks.management ? [stacks.management] : []), ...Object.values(stacks.clusters)];
    for (const stack of all) {
      const address = `${base}/terraform/state/${stack.node.id}`;
      new HttpBackend(stack, {
        address,
        lockAddress: `${address}/lock`,
        unlockAddress: `${address}/lock`,
        lockMethod: 'POST',
        unlockMethod: 'DELETE',
        retryWaitMin: 5,
      });
    }
  }
}

// main.ts of your own cdktf app:
//   const envApp = new EnvironmentsApp();
//   useGitLabState(envApp, { projectApiUrl: 'https://gitlab.example.com/api/v4/projects/42' });
//   envApp.synth();
