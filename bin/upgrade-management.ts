#!/usr/bin/env node
/**
 * Controller upgrade of the management stack, run by Terraform (terraform_data + local-exec) on
 * the operator's machine when `versions` change: nothing when the controllers already run them,
 * else a backup, `clusterctl upgrade apply` over the management API and the readiness wait.
 * Exit 0 done, 1 failed (one line on stderr), 2 invalid input.
 *
 * Environment: KUBE_SERVER, KUBE_CA_PEM, KUBE_CLIENT_CERT_PEM, KUBE_CLIENT_KEY_PEM; UPGRADE_ENVIRONMENT,
 * UPGRADE_CLUSTER_API, UPGRADE_CAPO, UPGRADE_CAAPH; UPGRADE_BACKUP_DIR or UPGRADE_BACKUP_S3_ENDPOINT,
 * _BUCKET, _REGION, _PREFIX; from the operator: CAPI_OPENSTACK_BACKUP_KEY, CAPI_OPENSTACK_CLUSTERCTL,
 * CAPI_OPENSTACK_CLUSTERCTL_REPOSITORY, AWS_* (with a state store).
 */
import { runUpgradeFromEnv } from '../lib/runtime/management/upgrade-run';
import { exitWith, stderrLine, stdoutLine } from '../lib/runtime/process';

exitWith(runUpgradeFromEnv(process.env, stdoutLine, stderrLine), 'upgrade-management: unexpected failure: ');
