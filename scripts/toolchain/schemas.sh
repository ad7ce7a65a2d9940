#!/usr/bin/env bash
# Dumps `terraform providers schema -json` of every pinned provider (from the offline mirror built
# by build.sh) into schemas/providers/<name>.json (committed data), gzipped as <name>.json.gz when
# larger than 8 MB, and writes schemas/providers/versions.json. Offline.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=env.sh
. "$here/env.sh"

log() { printf '[schemas] %s\n' "$*"; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
node "$here/providers.js" main-tf >"$work/main.tf"
log "terraform init (offline, mirror $CAPI_OPENSTACK_CDKTF_PROVIDER_MIRROR)"
terraform -chdir="$work" init -input=false -backend=false -no-color >"$work/init.log" 2>&1 || {
  cat "$work/init.log" >&2
  echo "[schemas] ERROR: terraform init failed (is the mirror complete? run: npm run toolchain)" >&2
  exit 1
}
log "terraform providers schema -json"
terraform -chdir="$work" providers schema -json >"$work/all.json"

out="$repo/schemas/providers"
mkdir -p "$out"
node "$here/providers.js" versions-json >"$out/versions.json"
node - "$work/all.json" "$out" <<'NODE'
// Splits the combined schema per provider; adds provider_versions (what `cdktf get` adds too).
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const [all, outDir] = process.argv.slice(2);
const LIMIT = 8 * 1024 * 1024;
const dump = JSON.parse(fs.readFileSync(all, 'utf8'));
const versions = JSON.parse(fs.readFileSync(path.join(outDir, 'versions.json'), 'utf8')).providers;
for (const p of versions) {
  const fqpn = `registry.terraform.io/${p.source}`;
  const schema = dump.provider_schemas[fqpn];
  if (!schema) throw new Error(`terraform providers schema has no ${fqpn}`);
  const text = JSON.stringify({
    format_version: dump.format_version,
    provider_schemas: { [fqpn]: schema },
    provider_versions: { [fqpn]: p.version },
  }) + '\n';
  const plain = path.join(outDir, `${p.name}.json`);
  fs.rmSync(plain, { force: true });
  fs.rmSync(`${plain}.gz`, { force: true });
  const bytes = Buffer.byteLength(text);
  if (bytes > LIMIT) {
    // zlib's gzip header carries no timestamp, so the file is reproducible.
    fs.writeFileSync(`${plain}.gz`, zlib.gzipSync(text, { level: 9 }));
    console.log(`[schemas] ${p.name}.json.gz (${bytes} bytes uncompressed, ${fs.statSync(`${plain}.gz`).size} gzipped)`);
  } else {
    fs.writeFileSync(plain, text);
    console.log(`[schemas] ${p.name}.json (${bytes} bytes)`);
  }
}
NODE
log "wrote $out"
