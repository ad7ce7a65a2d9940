'use strict';
/**
 * The entries of a zip archive, as Go's archive/zip writes them (local headers and data, central
 * directory, end record): what a Terraform plan file is. Only that canonical layout is read, so no
 * archive reads one way here and another way in Terraform.
 */
const zlib = require('zlib');
const { fail, utf8 } = require('./plan-file-error');

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

module.exports = { readZip };
