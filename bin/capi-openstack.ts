#!/usr/bin/env node
/** `capi-openstack`: operator commands (validate, import-tfvars, footprint, kubeconfig). See `capi-openstack --help`. */
import { runCli } from '../lib/runtime/cli/main';
import { exitWith, stderrLine, stdoutLine } from '../lib/runtime/process';

exitWith(runCli(process.argv.slice(2), { out: stdoutLine, err: stderrLine, cwd: process.cwd(), env: process.env }), 'error: ');
