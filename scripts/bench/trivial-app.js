#!/usr/bin/env node
/**
 * Baseline for `npm run bench`: the smallest cdktf app with the same providers as the project's
 * app (OpenStack, TLS and Kubernetes from the generated bindings in dist/lib/gen, loaded the same
 * way the stacks load them), one resource each.
 * Synthesizes into CDKTF_OUTDIR like `node dist/main.js` does.
 */
const path = require('path');
const { App, TerraformStack } = require('cdktf');

const root = path.resolve(__dirname, '..', '..');
const gen = (p) => require(path.join(root, 'dist', 'lib', 'gen', p));
const { OpenstackProvider } = gen('openstack/provider');
const { NetworkingNetworkV2 } = gen('openstack/networking-network-v2');
const { TlsProvider } = gen('tls/provider');
const { PrivateKey } = gen('tls/private-key');
const { KubernetesProvider } = gen('kubernetes/provider');
const { NamespaceV1 } = gen('kubernetes/namespace-v1');

const app = new App();
const stack = new TerraformStack(app, 'trivial');
new OpenstackProvider(stack, 'OpenStack', { cloud: 'mycloud' });
new TlsProvider(stack, 'Tls');
new KubernetesProvider(stack, 'Kubernetes', { configPath: '/dev/null' });
new NetworkingNetworkV2(stack, 'Network', { name: 'trivial' });
new PrivateKey(stack, 'Key', { algorithm: 'ED25519' });
new NamespaceV1(stack, 'Namespace', { metadata: { name: 'trivial' } });
app.synth();
