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
const zlib = require('zlib');

class PlanFileError extends Error {}

const fail = (message) => {
  throw new PlanFileError(message);
};

/**
 * A message as a log line may hold it: what the plan file names (entries, keys, modules) is the plan
 * job's text, so control characters are escaped (a CI log reads commands from line starts) and
 * long text is cut.
 */
function shown(text, max = 400) {
  const s = String(text);
  const cut = s.length > max ? `${s.slice(0, max - 3)}... (${s.length} characters)` : s;
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// ---------------------------------------------------------------------------------------------
// zip (the layout Go's archive/zip writes: local headers and data, central directory, end record)

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(buf) {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Largest entry inflated (the configuration and the protobuf plan; the state is never read). */
const MAX_ENTRY_BYTES = 256 * 1024 * 1024;

/**
 * The entries of a zip archive as name -> { read(): Buffer }. Only the canonical layout is
 * accepted: the end record closes the file (no comment), the central directory ends where the
 * end record starts (no prepended data), every local header names the entry of its directory
 * record, no name repeats, no encryption, no zip64.
 */
function readZip(buf) {
  const u16 = (o) => buf.readUInt16LE(o);
  const u32 = (o) => buf.readUInt32LE(o);
  const end = buf.length - 22;
  if (end < 0 || u32(end) !== 0x06054b50) fail('it is not a zip archive ending in an end-of-directory record without comment (a saved plan is one)');
  const count = u16(end + 10);
  const dirSize = u32(end + 12);
  const dirOffset = u32(end + 16);
  if (u16(end + 4) !== 0 || u16(end + 6) !== 0 || u16(end + 8) !== count) fail('it is a multi-part zip archive');
  if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) fail('it is a zip64 archive');
  if (dirOffset + dirSize !== end) fail('its zip directory does not end where the end record starts (data before or between the parts)');
  const entries = new Map();
  let at = dirOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || u32(at) !== 0x02014b50) fail(`zip directory record ${i + 1} of ${count} is malformed`);
    const flags = u16(at + 8);
    const method = u16(at + 10);
    const crc = u32(at + 16);
    const packed = u32(at + 20);
    const size = u32(at + 24);
    const nameLength = u16(at + 28);
    const next = at + 46 + nameLength + u16(at + 30) + u16(at + 32);
    const local = u32(at + 42);
    if (next > end) fail(`zip directory record ${i + 1} of ${count} runs past the directory`);
    const name = utf8(buf.subarray(at + 46, at + 46 + nameLength), 'a zip entry name');
    if (flags & 1) fail(`zip entry ${name} is encrypted`);
    if (packed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) fail(`zip entry ${name} uses zip64`);
    if (method !== 0 && method !== 8) fail(`zip entry ${name} uses compression method ${method} (only stored and deflate)`);
    if (entries.has(name)) fail(`zip entry ${name} occurs twice`);
    if (local + 30 > dirOffset || u32(local) !== 0x04034b50) fail(`zip entry ${name} has no local header at offset ${local}`);
    const localNameLength = u16(local + 26);
    if (!buf.subarray(local + 30, local + 30 + localNameLength).equals(buf.subarray(at + 46, at + 46 + nameLength))) fail(`zip entry ${name} has another name in its local header`);
    const data = local + 30 + localNameLength + u16(local + 28);
    if (data + packed > dirOffset) fail(`zip entry ${name} runs into the directory`);
    entries.set(name, {
      size,
      read() {
        if (size > MAX_ENTRY_BYTES) fail(`zip entry ${name} is ${size} bytes (more than ${MAX_ENTRY_BYTES})`);
        const raw = buf.subarray(data, data + packed);
        let out;
        try {
          out = method === 0 ? Buffer.from(raw) : zlib.inflateRawSync(raw, { maxOutputLength: Math.max(size, 1) });
        } catch (e) {
          fail(`zip entry ${name} does not inflate: ${e.message}`);
        }
        if (out.length !== size || crc32(out) !== crc) fail(`zip entry ${name} does not match its size or CRC-32`);
        return out;
      },
    });
    at = next;
  }
  if (at !== end) fail('the zip directory holds more than its records');
  return entries;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
function utf8(bytes, what) {
  try {
    return UTF8.decode(bytes);
  } catch {
    return fail(`${what} is not valid UTF-8`);
  }
}

// ---------------------------------------------------------------------------------------------
// protobuf wire format: fields of one message

function readVarint(buf, at) {
  let value = 0n;
  for (let shift = 0n, i = at; i < buf.length && shift < 70n; i++, shift += 7n) {
    value |= BigInt(buf[i] & 0x7f) << shift;
    if ((buf[i] & 0x80) === 0) return [value, i + 1];
  }
  return fail('a protobuf varint is cut off');
}

/** [field number, wire type, value (bigint for varints, Buffer otherwise)] of every field, in order. */
function protoFields(buf) {
  const fields = [];
  let at = 0;
  while (at < buf.length) {
    const [key, afterKey] = readVarint(buf, at);
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    at = afterKey;
    if (wire === 0) {
      const [value, next] = readVarint(buf, at);
      fields.push([field, wire, value]);
      at = next;
    } else if (wire === 1 || wire === 5) {
      const width = wire === 1 ? 8 : 4;
      if (at + width > buf.length) fail('a protobuf fixed-width field is cut off');
      fields.push([field, wire, buf.subarray(at, at + width)]);
      at += width;
    } else if (wire === 2) {
      const [length, start] = readVarint(buf, at);
      if (BigInt(start) + length > BigInt(buf.length)) fail(`protobuf field ${field} runs past its message`);
      fields.push([field, wire, buf.subarray(start, start + Number(length))]);
      at = start + Number(length);
    } else {
      fail(`protobuf field ${field} has wire type ${wire} (groups are not used by plan files)`);
    }
  }
  return fields;
}

/** The bytes of a singular length-delimited field; a repeated one would be merged by Go, so it is refused. */
function single(fields, number, what) {
  const found = fields.filter(([f]) => f === number);
  if (found.length > 1) fail(`${what} occurs ${found.length} times`);
  if (found.length === 0) return undefined;
  if (found[0][1] !== 2) fail(`${what} has wire type ${found[0][1]}, not length-delimited`);
  return found[0][2];
}

// ---------------------------------------------------------------------------------------------
// msgpack (cty's encoding of values; unknown values, extensions, are refused)

function decodeMsgpack(buf) {
  let at = 0;
  const need = (n) => {
    if (at + n > buf.length) fail('a msgpack value is cut off');
  };
  const bytes = (n) => {
    need(n);
    const b = buf.subarray(at, at + n);
    at += n;
    return b;
  };
  const uint = (n) => {
    const b = bytes(n);
    return n === 1 ? b[0] : n === 2 ? b.readUInt16BE(0) : n === 4 ? b.readUInt32BE(0) : safe(b.readBigUInt64BE(0));
  };
  const int = (n) => {
    const b = bytes(n);
    return n === 1 ? b.readInt8(0) : n === 2 ? b.readInt16BE(0) : n === 4 ? b.readInt32BE(0) : safe(b.readBigInt64BE(0));
  };
  const safe = (big) => (big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : fail(`msgpack integer ${big} is beyond what is compared exactly`));
  // every element takes at least a byte: a longer count is a cut-off value, not an allocation
  const count = (n) => (n <= buf.length - at ? n : fail('a msgpack array or map is longer than its data'));
  const array = (n) => Array.from({ length: count(n) }, () => value());
  const map = (n) => {
    count(n);
    const out = {};
    for (let i = 0; i < n; i++) {
      const key = value();
      if (typeof key !== 'string') fail('a msgpack map has a key that is not a string');
      if (Object.prototype.hasOwnProperty.call(out, key)) fail(`msgpack map key ${JSON.stringify(key)} occurs twice`);
      Object.defineProperty(out, key, { value: value(), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  const value = () => {
    need(1);
    const t = buf[at++];
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 0x100;
    if (t >= 0x80 && t <= 0x8f) return map(t & 0x0f);
    if (t >= 0x90 && t <= 0x9f) return array(t & 0x0f);
    if (t >= 0xa0 && t <= 0xbf) return utf8(bytes(t & 0x1f), 'a msgpack string');
    switch (t) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4:
      case 0xc5:
      case 0xc6:
        return utf8(bytes(uint(1 << (t - 0xc4))), 'a msgpack byte string');
      case 0xca:
        return bytes(4).readFloatBE(0);
      case 0xcb:
        return bytes(8).readDoubleBE(0);
      case 0xcc:
      case 0xcd:
      case 0xce:
      case 0xcf:
        return uint(1 << (t - 0xcc));
      case 0xd0:
      case 0xd1:
      case 0xd2:
      case 0xd3:
        return int(1 << (t - 0xd0));
      case 0xd9:
      case 0xda:
      case 0xdb:
        return utf8(bytes(uint(1 << (t - 0xd9))), 'a msgpack string');
      case 0xdc:
      case 0xdd:
        return array(uint(t === 0xdc ? 2 : 4));
      case 0xde:
      case 0xdf:
        return map(uint(t === 0xde ? 2 : 4));
      default:
        return fail(`msgpack type 0x${t.toString(16)} (an extension: an unknown value) where a known value is expected`);
    }
  };
  const result = value();
  if (at !== buf.length) fail('a msgpack value is followed by extra bytes');
  return result;
}

/** The msgpack bytes of a DynamicValue message. */
function dynamicValue(buf, what) {
  const msgpack = single(protoFields(buf), 1, `${what} (its msgpack field)`);
  if (msgpack === undefined) fail(`${what} has no msgpack value`);
  return msgpack;
}

// ---------------------------------------------------------------------------------------------
// the plan file

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

module.exports = { PlanFileError, readPlanFile, readZip, decodeMsgpack, protoFields, shown };
