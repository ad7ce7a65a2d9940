#!/usr/bin/env node
/**
 * Turns the controllers' own released configuration (the `config/` directory of each Go module,
 * which their release manifests are built from) into what `start` applies to the local
 * kube-apiserver, for controllers that run as local processes instead of Pods:
 *
 *   components   ClusterRoles and ClusterRoleBindings of `config/rbac` (names prefixed
 *                `local-capi-<controller>-`, subjects replaced by the controller's own user
 *                `local-capi:<controller>`; the role aggregation patch of `config/default`
 *                applied), the webhook configurations of `config/webhook/manifests.yaml` with
 *                clientConfig.url https://127.0.0.1:<port><path> and the test CA, and the CRDs
 *                of controllers whose CRDs local-kube does not install (ORC).
 *   conversion   CRD patches enabling the conversion webhooks the module's
 *                `config/crd/kustomization.yaml` enables, pointed at the same local server.
 *   restore      the same CRD patches with `strategy: None` (what `stop` applies).
 *
 * Usage: components.js components|conversion|restore --ca FILE --spec JSON
 *   JSON: [{"name":"capi","dir":"<module dir>","config":"config","webhookPort":19403,"crds":false}]
 * Prints a JSON List on stdout.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const { parseAllDocuments } = require(require.resolve('yaml', { paths: [path.join(__dirname, '..', '..')] }));

function fail(msg) {
  process.stderr.write(`components.js: ${msg}\n`);
  process.exit(1);
}

function docs(file) {
  return parseAllDocuments(fs.readFileSync(file, 'utf8'))
    .map((d) => {
      if (d.errors.length > 0) fail(`${file}: ${d.errors[0].message}`);
      return d.toJS();
    })
    .filter((o) => o && typeof o === 'object');
}

/** Files a kustomization lists under `resources` / `patches` (plain strings or {path}). */
function kustomizationFiles(dir, key) {
  const file = path.join(dir, 'kustomization.yaml');
  if (!fs.existsSync(file)) return [];
  const k = docs(file)[0] || {};
  return (k[key] || []).map((e) => (typeof e === 'string' ? e : e.path)).filter((p) => p && p.endsWith('.yaml')).map((p) => path.join(dir, p));
}

const prefixed = (c, name) => `local-capi-${c.name}-${name}`;
const userOf = (c) => `local-capi:${c.name}`;

/** ClusterRoles and their bindings, bound to the controller's user instead of its ServiceAccount. */
function rbac(c) {
  const root = path.join(c.dir, c.config);
  const objects = kustomizationFiles(path.join(root, 'rbac'), 'resources').flatMap(docs);
  // config/default's role aggregation patch relabels manager-role and rebinds to the aggregated role
  const patchFile = path.join(root, 'default', 'manager_role_aggregation_patch.yaml');
  const patches = fs.existsSync(patchFile) ? docs(patchFile) : [];
  const out = [];
  for (const o of objects) {
    if (o.kind !== 'ClusterRole' && o.kind !== 'ClusterRoleBinding') continue; // leader election (off) and ServiceAccounts
    const p = patches.find((x) => x.kind === o.kind && x.metadata.name === o.metadata.name);
    const obj = JSON.parse(JSON.stringify(o));
    if (p?.metadata?.labels) obj.metadata.labels = { ...(obj.metadata.labels || {}), ...p.metadata.labels };
    if (p?.roleRef) obj.roleRef = p.roleRef;
    obj.metadata.name = prefixed(c, obj.metadata.name);
    obj.metadata.labels = { ...(obj.metadata.labels || {}), 'local-capi/controller': c.name };
    if (obj.kind === 'ClusterRoleBinding') {
      obj.roleRef = { ...obj.roleRef, name: prefixed(c, obj.roleRef.name) };
      obj.subjects = [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: userOf(c) }];
    }
    out.push(obj);
  }
  if (!out.some((o) => o.kind === 'ClusterRoleBinding')) fail(`${c.name}: no ClusterRoleBinding in ${root}/rbac`);
  return out;
}

function clientConfig(c, servicePath, caBundle) {
  return { url: `https://127.0.0.1:${c.webhookPort}${servicePath}`, caBundle };
}

function webhooks(c, caBundle) {
  const file = path.join(c.dir, c.config, 'webhook', 'manifests.yaml');
  if (!fs.existsSync(file)) return [];
  return docs(file).map((o) => {
    const obj = JSON.parse(JSON.stringify(o));
    obj.metadata = { name: prefixed(c, obj.metadata.name), labels: { 'local-capi/controller': c.name } };
    for (const w of obj.webhooks) {
      const svcPath = w.clientConfig?.service?.path;
      if (!svcPath) fail(`${file}: webhook ${w.name} has no clientConfig.service.path`);
      w.clientConfig = clientConfig(c, svcPath, caBundle);
    }
    return obj;
  });
}

/** CRD names whose conversion webhook the module's crd kustomization enables. */
function conversionCrds(c) {
  return kustomizationFiles(path.join(c.dir, c.config, 'crd'), 'patches')
    .filter((f) => path.basename(f).startsWith('webhook_in_'))
    .flatMap(docs)
    .filter((o) => o.kind === 'CustomResourceDefinition' && o.spec?.conversion?.strategy === 'Webhook')
    .map((o) => ({ name: o.metadata.name, reviewVersions: o.spec.conversion.webhook?.conversionReviewVersions || ['v1'] }));
}

function conversion(c, caBundle, on) {
  return conversionCrds(c).map((crd) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crd.name },
    spec: {
      conversion: on
        ? { strategy: 'Webhook', webhook: { conversionReviewVersions: crd.reviewVersions, clientConfig: clientConfig(c, '/convert', caBundle) } }
        : { strategy: 'None' },
    },
  }));
}

function crds(c) {
  if (!c.crds) return [];
  return kustomizationFiles(path.join(c.dir, c.config, 'crd'), 'resources').flatMap(docs).filter((o) => o.kind === 'CustomResourceDefinition');
}

function main() {
  const [mode, ...rest] = process.argv.slice(2);
  const opts = {};
  for (let i = 0; i < rest.length; i += 2) opts[rest[i].replace(/^--/, '')] = rest[i + 1];
  if (!['components', 'conversion', 'restore'].includes(mode) || !opts.spec || !opts.ca) fail('usage: components.js components|conversion|restore --ca FILE --spec JSON');
  const caBundle = Buffer.from(fs.readFileSync(opts.ca)).toString('base64');
  const spec = JSON.parse(opts.spec);
  const items = spec.flatMap((c) => {
    if (mode === 'components') return [...crds(c), ...rbac(c), ...webhooks(c, caBundle)];
    return conversion(c, caBundle, mode === 'conversion');
  });
  process.stdout.write(`${JSON.stringify({ apiVersion: 'v1', kind: 'List', items })}\n`);
}

main();
