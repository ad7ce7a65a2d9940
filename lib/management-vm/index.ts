export * from './management-user-data';
export * from './clouds-yaml';
export * from './kind-config';
export * from './no-proxy';
export * from './paths';
export * from './types';
export { containsToken } from './tokens';
export { BOOTSTRAP_STEPS, renderBootstrapScripts } from './bootstrap-scripts';
export type { ScriptFile } from './bootstrap-scripts';
