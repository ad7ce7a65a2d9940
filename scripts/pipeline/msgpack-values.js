'use strict';
/**
 * msgpack, as Terraform's cty writes values (plan variables, backend settings). Unknown values
 * (extensions), a map key twice and invalid UTF-8 are refused, not interpreted; integers beyond
 * what a JavaScript number holds exactly are refused too.
 */
const { fail, utf8 } = require('./plan-file-error');

class MsgpackReader {
  constructor(buf) {
    this.buf = buf;
    this.at = 0;
  }

  bytes(n) {
    if (this.at + n > this.buf.length) fail('a msgpack value is cut off');
    const b = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }

  uint(n) {
    const b = this.bytes(n);
    return n === 1 ? b[0] : n === 2 ? b.readUInt16BE(0) : n === 4 ? b.readUInt32BE(0) : exact(b.readBigUInt64BE(0));
  }

  int(n) {
    const b = this.bytes(n);
    return n === 1 ? b.readInt8(0) : n === 2 ? b.readInt16BE(0) : n === 4 ? b.readInt32BE(0) : exact(b.readBigInt64BE(0));
  }

  /** Every element takes at least a byte: a longer count is a cut-off value, not an allocation. */
  count(n) {
    return n <= this.buf.length - this.at ? n : fail('a msgpack array or map is longer than its data');
  }

  array(n) {
    return Array.from({ length: this.count(n) }, () => this.value());
  }

  map(n) {
    const out = {};
    const entries = this.count(n);
    for (let i = 0; i < entries; i++) {
      const key = this.value();
      if (typeof key !== 'string') fail('a msgpack map has a key that is not a string');
      if (Object.prototype.hasOwnProperty.call(out, key)) fail(`msgpack map key ${JSON.stringify(key)} occurs twice`);
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  text(n, what = 'a msgpack string') {
    return utf8(this.bytes(n), what);
  }

  value() {
    const t = this.bytes(1)[0];
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 0x100;
    if (t <= 0x8f) return this.map(t & 0x0f);
    if (t <= 0x9f) return this.array(t & 0x0f);
    if (t <= 0xbf) return this.text(t & 0x1f);
    return this.tagged(t);
  }

  /** The formats with a type byte of their own (0xc0-0xdf). */
  tagged(t) {
    if (t === 0xc0) return null;
    if (t === 0xc2 || t === 0xc3) return t === 0xc3;
    if (t >= 0xc4 && t <= 0xc6) return this.text(this.uint(1 << (t - 0xc4)), 'a msgpack byte string');
    if (t === 0xca) return this.bytes(4).readFloatBE(0);
    if (t === 0xcb) return this.bytes(8).readDoubleBE(0);
    if (t >= 0xcc && t <= 0xcf) return this.uint(1 << (t - 0xcc));
    if (t >= 0xd0 && t <= 0xd3) return this.int(1 << (t - 0xd0));
    if (t >= 0xd9 && t <= 0xdb) return this.text(this.uint(1 << (t - 0xd9)));
    if (t === 0xdc || t === 0xdd) return this.array(this.uint(t === 0xdc ? 2 : 4));
    if (t === 0xde || t === 0xdf) return this.map(this.uint(t === 0xde ? 2 : 4));
    return fail(`msgpack type 0x${t.toString(16)} (an extension: an unknown value) where a known value is expected`);
  }
}

function exact(big) {
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : fail(`msgpack integer ${big} is beyond what is compared exactly`);
}

/** The one value `buf` holds; trailing bytes are refused. */
function decodeMsgpack(buf) {
  const reader = new MsgpackReader(buf);
  const value = reader.value();
  if (reader.at !== buf.length) fail('a msgpack value is followed by extra bytes');
  return value;
}

module.exports = { decodeMsgpack };
