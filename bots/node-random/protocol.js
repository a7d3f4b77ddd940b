'use strict';
// The Tichu Arena wire protocol (protocol/PROTOCOL.md, version 1): strict decoding,
// validation against the field tables of PROTOCOL.md (schema.txt) and canonical encoding.

const fs = require('fs');
const path = require('path');
const msgpack = require('@msgpack/msgpack');

const MAX_MESSAGE_BYTES = 1 << 20;
const INT32 = 2147483647;
const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A'];
const SUITS = ['j', 's', 'p', 't'];
const CARDS = RANKS.flatMap((r) => SUITS.map((s) => r + s))
  .concat(['Mahjong', 'Dog', 'Phoenix', 'Dragon']);
const CARD_ID = new Map(CARDS.map((name, id) => [name, id]));
const BOT_TYPES = ['hello', 'reply'];
const REFEREE_TYPES = ['welcome', 'reject', 'request', 'events', 'end', 'error'];
const KIND_ACTIONS = {
  grand_tichu: ['grand_tichu'], exchange: ['exchange'], tichu: ['tichu'],
  play: ['pass', 'play'], bomb: ['pass', 'play'], dragon_gift: ['give_dragon'],
};

class ProtocolError extends Error {
  constructor(code, where, detail) {
    super(`${code} at ${where || '<message>'}: ${detail}`);
    this.code = code;
  }
}

// ----- schema: one line per map, "name: field=spec, optional?=spec, ..." -----------------

function loadSchema() {
  const records = {};
  const text = fs.readFileSync(path.join(__dirname, 'schema.txt'), 'utf8');
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const [name, rest] = line.split(': ');
    records[name] = rest.split(', ').map((f) => {
      const [key, spec] = f.split('=');
      const optional = key.endsWith('?');
      return { key: optional ? key.slice(0, -1) : key, spec, optional };
    });
  }
  return records;
}
const SCHEMA = loadSchema();

function join(where, key) { return where ? `${where}.${key}` : key; }

function typeName(v) {
  if (v === null) return 'nil';
  if (Array.isArray(v)) return 'array';
  return { boolean: 'boolean', number: 'integer', string: 'string', object: 'map' }[typeof v];
}

function wrong(v, where, expected) {
  return new ProtocolError('wrong_type', where, `expected ${expected}, got ${typeName(v)}`);
}

function isMap(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }

function checkRange(n, lo, hi, where, what) {
  if (n < lo || n > hi) throw new ProtocolError('bad_value', where, `${what} ${n} is outside ${lo}..${hi}`);
}

function check(v, spec, where) {
  if (spec.startsWith('?')) return v === null || check(v, spec.slice(1), where);
  if (spec.startsWith('[')) return checkArray(v, spec, where);
  if (spec.startsWith('@')) return checkRecord(v, spec.slice(1), where);
  if (spec.startsWith('<')) return checkTagged(v, spec.slice(1), where);
  const [t, a, b] = spec.split(':');
  switch (t) {
    case 'i':
      if (typeof v !== 'number') throw wrong(v, where, 'integer');
      return checkRange(v, a === undefined ? -INT32 : +a, b === undefined ? INT32 : +b, where, 'value');
    case 'b':
      if (typeof v !== 'boolean') throw wrong(v, where, 'boolean');
      return true;
    case 's':
      if (typeof v !== 'string') throw wrong(v, where, 'string');
      return checkRange([...v].length, +a, +b, where, 'length');
    case 'e': case 'k':
      if (typeof v !== 'string') throw wrong(v, where, 'string');
      if (!a.split('|').includes(v)) throw new ProtocolError(t === 'k' ? 'unknown_kind' : 'bad_value', where, `'${v}' is not one of ${a}`);
      return true;
    case 'r': return check(v, `e:${RANKS.join('|')}`, where);
    case 'c': return checkCard(v, where);
    case 'C': return checkCards(v, +a, +b, where);
    case 't': return true; // the tag itself, checked by the union
    default: throw new Error(`bad schema spec ${spec}`);
  }
}

function checkCard(v, where) {
  if (typeof v !== 'string') throw wrong(v, where, 'string');
  if (!CARD_ID.has(v)) throw new ProtocolError('bad_value', where, `'${v}' is not a card name`);
  return true;
}

function checkCards(v, lo, hi, where) {
  checkArray(v, `[${lo}:${hi}]c`, where);
  if (new Set(v).size !== v.length) throw new ProtocolError('bad_value', where, 'a card is listed twice');
  return true;
}

function checkArray(v, spec, where) {
  const close = spec.indexOf(']');
  const [lo, hi] = spec.slice(1, close).split(':').map(Number);
  if (!Array.isArray(v)) throw wrong(v, where, 'array');
  checkRange(v.length, lo, hi, where, 'item count');
  v.forEach((item, i) => check(item, spec.slice(close + 1), `${where}[${i}]`));
  return true;
}

function checkRecord(v, name, where) {
  if (!isMap(v)) throw wrong(v, where || name, 'map');
  const fields = SCHEMA[name];
  for (const key of Object.keys(v)) {
    if (!fields.some((f) => f.key === key)) throw new ProtocolError('unknown_field', join(where || name, key), `${name} has no field '${key}'`);
  }
  for (const f of fields) {
    if (Object.prototype.hasOwnProperty.call(v, f.key)) check(v[f.key], f.spec, join(where || name, f.key));
    else if (!f.optional) throw new ProtocolError('missing_field', join(where || name, f.key), `${name} needs field '${f.key}'`);
  }
  return true;
}

function checkTagged(v, family, where) {
  const tag = family === 'action' ? 'action' : 'kind';
  if (!isMap(v)) throw wrong(v, where, 'map');
  if (!(tag in v)) throw new ProtocolError('missing_field', join(where, tag), `a map needs field '${tag}'`);
  const kinds = Object.keys(SCHEMA).filter((n) => n.startsWith(family + '.')).map((n) => n.slice(family.length + 1));
  check(v[tag], `k:${kinds.join('|')}`, join(where, tag));
  return checkRecord(v, `${family}.${v[tag]}`, where);
}

/** Check a decoded message sent by `sender` ('bot' or 'referee'); ProtocolError if invalid. */
function validate(message, sender) {
  const types = sender === 'bot' ? BOT_TYPES : REFEREE_TYPES;
  if (!isMap(message)) throw wrong(message, '', 'map');
  if (!('type' in message)) throw new ProtocolError('missing_field', 'type', "a message needs field 'type'");
  if (typeof message.type !== 'string') throw wrong(message.type, 'type', 'string');
  if (!types.includes(message.type)) throw new ProtocolError('unknown_type', 'type', `'${message.type}' is not a ${sender} message`);
  checkRecord(message, `msg.${message.type}`, message.type);
  if (message.type === 'reply' && (message.option ?? null) === null === ((message.action ?? null) === null)) {
    throw new ProtocolError('bad_value', 'reply', "a reply holds exactly one of 'option' and 'action'");
  }
  if (message.type === 'request' && message.options !== null) {
    message.options.forEach((o, i) => {
      if (!KIND_ACTIONS[message.kind].includes(o.action)) throw new ProtocolError('bad_value', `request.options[${i}].action`, `a ${message.kind} request cannot offer '${o.action}'`);
    });
  }
  return message;
}

// ----- bytes: @msgpack/msgpack decodes, scan() enforces what it lets through --------------

function u(bytes, pos, n) {
  if (pos + n > bytes.length) throw new ProtocolError('not_msgpack', '', 'truncated');
  let x = 0;
  for (let i = 0; i < n; i++) x = x * 256 + bytes[pos + i];
  return x;
}

// Walks one value; returns the position after it. Rejects what PROTOCOL.md section 3 forbids
// and the decoder cannot show: non-string keys, repeated keys, floats, bin, ext.
function scan(bytes, pos, where) {
  const b = bytes[pos];
  const str = (len, at) => { u(bytes, at, 0); return at + len; };
  if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) return pos + 1;
  if (b >= 0xa0 && b <= 0xbf) return str(b & 0x1f, pos + 1);
  if (b >= 0xcc && b <= 0xd3) return pos + 1 + (1 << (b & 3));
  if (b >= 0xd9 && b <= 0xdb) { const n = 1 << (b - 0xd9); return str(u(bytes, pos + 1, n), pos + 1 + n); }
  if ((b >= 0x90 && b <= 0x9f) || b === 0xdc || b === 0xdd) {
    let [count, at] = b <= 0x9f ? [b & 0x0f, pos + 1] : [u(bytes, pos + 1, b === 0xdc ? 2 : 4), pos + (b === 0xdc ? 3 : 5)];
    for (let i = 0; i < count; i++) at = scan(bytes, at, `${where}[${i}]`);
    return at;
  }
  if ((b >= 0x80 && b <= 0x8f) || b === 0xde || b === 0xdf) {
    let [count, at] = b <= 0x8f ? [b & 0x0f, pos + 1] : [u(bytes, pos + 1, b === 0xde ? 2 : 4), pos + (b === 0xde ? 3 : 5)];
    const seen = new Set();
    for (let i = 0; i < count; i++) {
      const k = bytes[at];
      if (!((k >= 0xa0 && k <= 0xbf) || (k >= 0xd9 && k <= 0xdb))) throw new ProtocolError('wrong_type', where, 'map keys must be strings');
      const end = scan(bytes, at, where);
      const key = Buffer.from(bytes.subarray(at, end)).toString('latin1');
      if (seen.has(key)) throw new ProtocolError('duplicate_field', where, 'a map repeats a key');
      seen.add(key);
      at = scan(bytes, end, where);
    }
    return at;
  }
  throw new ProtocolError('wrong_type', where, `msgpack type 0x${b.toString(16)} (float, bin or ext) is not allowed`);
}

/** Decode and validate one frame from `sender`; ProtocolError naming the fault if invalid. */
function decode(bytes, sender) {
  if (bytes.length > MAX_MESSAGE_BYTES) throw new ProtocolError('oversize', '', `${bytes.length} bytes`);
  let message;
  try {
    message = msgpack.decode(bytes, { useBigInt64: false });
  } catch (err) {
    throw new ProtocolError('not_msgpack', '', err.message);
  }
  scan(bytes, 0, '');
  return validate(message, sender);
}

/** The canonical bytes of a message whose keys are already in PROTOCOL.md order. */
function encode(message) {
  return Buffer.from(msgpack.encode(message));
}

module.exports = { CARDS, CARD_ID, ProtocolError, MAX_MESSAGE_BYTES, decode, encode, validate };
