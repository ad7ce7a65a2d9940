'use strict';
/**
 * Reads a Terraform saved plan file (`terraform plan -out`) for scripts/pipeline/review.js: the
 * configuration snapshot Terraform applies instead of the working directory, the state backend
 * the apply writes to, and the input variables. No dependency: a plan file is a zip archive holding
 * `tfplan` (protobuf, planfile.proto of Terraform), `tfconfig/` (the configuration files byte for
 * byte, `tfconfig/m-<module key>/<file>` and `tfconfig/modules.json`), the prior state and the
 * dependency locks.
 *
 * The file comes from the plan job, which the apply job does not trust. Wherever this reader and
 * Terraform's could read one file two ways (prepended data, a duplicated entry or field, invalid
 * UTF-8), the file is refused instead of interpreted: a plan Terraform wrote never has them.
 */
const { PlanFileError, fail, shown, utf8 } = require('./plan-file-error');
const { decodeMsgpack } = require('./msgpack-values');
const { protoFields, single } = require('./protobuf-fields');
const { readZip } = require('./zip-entries');

/** The msgpack bytes of a DynamicValue message. */
function dynamicValue(buf, what) {
  const msgpack = single(protoFields(buf), 1, `${what} (its msgpack field)`);
  if (msgpack === undefined) fail(`${what} has no msgpack value`);
  return msgpack;
}

/** planfile.proto field numbers read here. */
const PLAN = { variables: 2, backend: 13, stateStore: 29 };
const BACKEND = { type: 1, config: 2, workspace: 3 };

/**
 * {
 *   modules: [{ key, dir, source, version, files: Map<file name, Buffer> }] sorted by key,
 *   backend: { type, config, workspace },
 *   variables: { name: value },
 * }
 */
function readPlanFile(buf) {
  const entries = readZip(buf);
  const tfplan = entries.get('tfplan');
  if (!tfplan) fail('it has no tfplan entry (not a Terraform plan file)');
  return { modules: configSnapshot(entries), ...planSettings(tfplan.read()) };
}

function configSnapshot(entries) {
  const manifestEntry = entries.get('tfconfig/modules.json');
  if (!manifestEntry) fail('it has no configuration snapshot (tfconfig/modules.json)');
  let manifest;
  try {
    manifest = JSON.parse(utf8(manifestEntry.read(), 'tfconfig/modules.json'));
  } catch (e) {
    fail(`tfconfig/modules.json is not JSON: ${e.message}`);
  }
  if (!Array.isArray(manifest)) fail('tfconfig/modules.json is not a list of modules');
  const modules = new Map();
  for (const record of manifest) {
    if (!record || typeof record.Key !== 'string' || typeof record.Dir !== 'string') fail('tfconfig/modules.json has a record without Key and Dir');
    if (modules.has(record.Key)) fail(`tfconfig/modules.json names module ${JSON.stringify(record.Key)} twice`);
    modules.set(record.Key, { key: record.Key, dir: record.Dir, source: record.Source ?? '', version: record.Version ?? '', files: new Map() });
  }
  for (const [name, entry] of entries) {
    if (!name.startsWith('tfconfig/') || name === 'tfconfig/modules.json') continue;
    // Terraform splits tfconfig/m-<key>/<file> at the last "/" (Go's path.Split).
    const rel = name.startsWith('tfconfig/m-') ? name.slice('tfconfig/m-'.length) : undefined;
    const slash = rel === undefined ? -1 : rel.lastIndexOf('/');
    if (slash < 0) fail(`it has the configuration entry ${name}, which is not tfconfig/m-<module>/<file>`);
    const module = modules.get(rel.slice(0, slash));
    if (!module) fail(`${name} belongs to no module of tfconfig/modules.json`);
    module.files.set(rel.slice(slash + 1), entry.read());
  }
  return [...modules.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function planSettings(tfplan) {
  const fields = protoFields(tfplan);
  if (fields.some(([f]) => f === PLAN.stateStore)) fail('it names a state_store, which this check does not read');
  const backendBytes = single(fields, PLAN.backend, 'the plan\'s backend');
  if (backendBytes === undefined) fail('it records no state backend');
  const backendFields = protoFields(backendBytes);
  const text = (number, what) => {
    const b = single(backendFields, number, what);
    return b === undefined ? '' : utf8(b, what);
  };
  const configBytes = single(backendFields, BACKEND.config, 'the backend\'s config');
  if (configBytes === undefined) fail('its backend has no config');
  const backend = {
    type: text(BACKEND.type, 'the backend\'s type'),
    config: decodeMsgpack(dynamicValue(configBytes, 'the backend\'s config')),
    workspace: text(BACKEND.workspace, 'the backend\'s workspace') || 'default',
  };
  const variables = {};
  for (const [field, wire, entry] of fields) {
    if (field !== PLAN.variables) continue;
    if (wire !== 2) fail('a variable of the plan is not length-delimited');
    const entryFields = protoFields(entry);
    const keyBytes = single(entryFields, 1, 'a variable\'s name');
    const name = keyBytes === undefined ? '' : utf8(keyBytes, 'a variable\'s name');
    const valueBytes = single(entryFields, 2, `variable ${name}`);
    if (valueBytes === undefined) fail(`variable ${name} has no value`);
    if (Object.prototype.hasOwnProperty.call(variables, name)) fail(`variable ${name} occurs twice`);
    // Terraform stores variables with their type: [type as JSON, value].
    const typed = decodeMsgpack(dynamicValue(valueBytes, `variable ${name}`));
    if (!Array.isArray(typed) || typed.length !== 2) fail(`variable ${name} is not stored as [type, value]`);
    Object.defineProperty(variables, name, { value: typed[1], enumerable: true, writable: true, configurable: true });
  }
  return { backend, variables };
}

/** planfile.proto: Plan.resource_changes, ResourceInstanceChange.change, Change.action. */
const RESOURCE_CHANGES = 3;
const CHANGE = 9;
const ACTION = 1;
/**
 * Change.action as `terraform show -json` counts it in scripts/pipeline/stacks.js: no-op (0),
 * read (2) and forget (8) count as nothing; create-then-forget (9) creates.
 */
const COUNTED_AS = { 1: 'create', 3: 'update', 5: 'delete', 6: 'replace', 7: 'replace', 9: 'create' };

/**
 * The resource changes of a saved plan by kind, read from its tfplan entry: what the plan stage
 * reported through `terraform show -json` before, which starts every provider of the stack again
 * for its schema (about a fifth of a cluster stack's plan CPU) only to be counted.
 */
function planChangeCounts(buf) {
  const tfplan = readZip(buf).get('tfplan');
  if (!tfplan) fail('it has no tfplan entry (not a Terraform plan file)');
  const counts = { create: 0, update: 0, delete: 0, replace: 0 };
  for (const [field, wire, change] of protoFields(tfplan.read())) {
    if (field !== RESOURCE_CHANGES) continue;
    if (wire !== 2) fail('a resource change of the plan is not length-delimited');
    const changeBytes = single(protoFields(change), CHANGE, 'a resource change\'s change');
    // proto3 leaves out a zero action (no-op); the last occurrence of a scalar wins, as in Go
    const action = changeBytes === undefined ? 0 : Number(protoFields(changeBytes).filter(([f, w]) => f === ACTION && w === 0).pop()?.[2] ?? 0n);
    const kind = COUNTED_AS[action];
    if (kind) counts[kind]++;
  }
  return counts;
}

module.exports = { PlanFileError, planChangeCounts, readPlanFile, shown };
