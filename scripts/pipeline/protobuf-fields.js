'use strict';
/** The protobuf wire format: the fields of one message, as bytes (Terraform's tfplan is one). */
const { fail } = require('./plan-file-error');

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

module.exports = { protoFields, single };
