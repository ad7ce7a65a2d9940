import * as path from 'path';
import { App, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';

/** jsii's type information on every cdktf / cdktn class: `{ fqn: 'cdktn.App', version: '0.24.0' }`. */
const RTTI = Symbol.for('jsii.rtti');

interface Rtti {
  readonly fqn?: string;
  readonly version?: string;
}

/** The package and version a framework class comes from. */
function packageOf(cls: unknown): { readonly name: string; readonly version?: string } {
  const rtti = typeof cls === 'function' ? (cls as unknown as Record<symbol, Rtti | undefined>)[RTTI] : undefined;
  return { name: rtti?.fqn?.split('.')[0] || 'an unknown framework package', version: rtti?.version };
}

const describePackage = (p: { readonly name: string; readonly version?: string }) => (p.version ? `${p.name} ${p.version}` : p.name);

/** Where the copy this library loads lives (its `require('cdktf')`). */
function ownLocation(): string {
  try {
    return path.dirname(require.resolve('cdktf/package.json'));
  } catch {
    return 'its own node_modules';
  }
}

/**
 * Refuses a construct whose stack or app comes from another framework package or version than the
 * one this library loads: installing `cdktn` under its own name pulls `cdktf` as this library's
 * peer, and the mix fails only at synth, with `e._resetResolveDiscoveredProviderFeatureUsage is
 * not a function` and no hint. A second copy of the same package and version (a symlinked or
 * unhoisted install) synthesizes correctly and is accepted.
 */
export function requireOneFramework(scope: Construct, construct: string): void {
  // typed as plain constructs: a foreign copy's classes are no instances of this one's
  const stack: Construct = TerraformStack.of(scope);
  const root: Construct = scope.node.root as Construct;
  const rootClass: unknown = root.constructor;
  const foreign =
    !(stack instanceof TerraformStack) ? { what: `its stack "${stack.node.id}" is a TerraformStack`, theirs: packageOf(stack.constructor), ours: packageOf(TerraformStack) } :
    !(root instanceof App) && App.isApp(root) ? { what: 'its app is an App', theirs: packageOf(rootClass), ours: packageOf(App) } :
    undefined;
  if (!foreign || describePackage(foreign.theirs) === describePackage(foreign.ours)) return;
  const { theirs, ours } = foreign;
  const align =
    theirs.name === 'cdktn'
      ? `install cdktn under the name "cdktf", which capi-openstack-cdktf shares with your app: \`npm uninstall cdktn && npm install cdktf@npm:cdktn@${theirs.version ?? '<version>'}\`, and import App and TerraformStack from 'cdktf'`
      : `install one version of ${ours.name} for your app and capi-openstack-cdktf (\`npm ls ${ours.name} ${theirs.name}\` lists the copies)`;
  throw new Error(
    `${construct} at ${scope.node.path}: ${foreign.what} of ${describePackage(theirs)}, but capi-openstack-cdktf loads ${describePackage(ours)} (${ownLocation()}); ` +
      `one app cannot mix two framework packages (synthesis would fail with "… is not a function"). Align them: ${align}`,
  );
}
