#!/usr/bin/env node
/** `capi-openstack`: operator commands (validate, import-tfvars, footprint, kubeconfig). See `capi-openstack --help`. */
import { runCli } from '../lib/cli/main';

runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
  env: process.env,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
