export * from './management-user-data';
export * from './clouds-yaml';
export * from './kind-config';
export * from './no-proxy';
export * from './paths';
export * from './types';
export { containsToken } from './tokens';
export { BOOTSTRAP_STAGES, bootstrapStages, renderBootstrapScripts } from './bootstrap-scripts';
export type { ScriptFile } from './bootstrap-scripts';
