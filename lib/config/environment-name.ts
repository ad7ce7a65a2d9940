import { ConfigIssue } from './errors';

/** An environment name: it names stacks and resources, so lowercase letters, digits and `-`, at most 24. */
export const ENVIRONMENT_NAME = /^[a-z]([-a-z0-9]{0,22}[a-z0-9])?$/;

export function environmentNameIssue(name: string, path: string): ConfigIssue {
  return { path, message: `expected an environment name of lowercase letters, digits and "-" (at most 24, it names stacks and resources), found "${name}"` };
}
