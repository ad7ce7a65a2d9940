#!/usr/bin/env node
/**
 * Writes one Cluster API version's part of a local clusterctl repository (see `repository`):
 * the CRDs scripts/local-kube extracted (`--crds DIR`: index.json + install/*.json), split by
 * provider into its components file, and each provider's metadata.yaml.
 *
 * Usage: repository.js --crds DIR --out DIR --capi V --capi-metadata FILE --capo V --capo-metadata FILE --caaph V --caaph-metadata FILE
 */
'use strict';
const fs = require('fs');
const path = require('path');

function fail(msg) {
  process.stderr.write(`repository.js: ${msg}\n`);
  process.exit(1);
}

/** clusterctl's provider label and components file name of a CRD, by its group (and name). */
function providerOf(crdName) {
  if (/^helm(chart|release)proxies\./.test(crdName)) return ['addon-helm', 'addon-components.yaml', 'caaph'];
  if (crdName.endsWith('.bootstrap.cluster.x-k8s.io')) return ['bootstrap-kubeadm', 'bootstrap-components.yaml', 'capi'];
  if (crdName.endsWith('.controlplane.cluster.x-k8s.io')) return ['control-plane-kubeadm', 'control-plane-components.yaml', 'capi'];
  if (crdName.endsWith('.infrastructure.cluster.x-k8s.io')) return ['infrastructure-openstack', 'infrastructure-components.yaml', 'capo'];
  if (crdName.endsWith('.cluster.x-k8s.io')) return ['cluster-api', 'core-components.yaml', 'capi'];
  return undefined;
}

function main() {
  const args = process.argv.slice(2);
  const o = {};
  for (let i = 0; i < args.length; i += 2) o[args[i].replace(/^--/, '')] = args[i + 1];
  for (const k of ['crds', 'out', 'capi', 'capi-metadata', 'capo', 'capo-metadata', 'caaph', 'caaph-metadata']) if (!o[k]) fail(`--${k} is missing`);
  const index = JSON.parse(fs.readFileSync(path.join(o.crds, 'index.json'), 'utf8'));
  const parts = new Map();
  for (const entry of index) {
    const p = providerOf(entry.name);
    if (!p) continue;
    const [label, file, versionKey] = p;
    const key = `${label}/${o[versionKey]}/${file}`;
    if (!parts.has(key)) parts.set(key, { label, version: o[versionKey], file, metadata: o[`${versionKey}-metadata`], docs: [] });
    parts.get(key).docs.push(fs.readFileSync(path.join(o.crds, 'install', `${entry.file}.json`), 'utf8').trim());
  }
  for (const part of parts.values()) {
    const dir = path.join(o.out, part.label, part.version);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, part.file), `${part.docs.join('\n---\n')}\n`);
    fs.copyFileSync(part.metadata, path.join(dir, 'metadata.yaml'));
  }
  process.stdout.write(`${[...parts.keys()].sort().join('\n')}\n`);
}

main();
