'use strict';
// The golden vectors of protocol/vectors/ (PROTOCOL.md section 10) against protocol.js.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const protocol = require('../protocol');
const { decide } = require('../bot');

const VECTORS = process.env.TICHU_VECTORS || path.join(__dirname, '..', '..', '..', 'protocol', 'vectors');
const load = (name) => JSON.parse(fs.readFileSync(path.join(VECTORS, name), 'utf8'));

test('every message of messages.json decodes to its message and encodes to its bytes', () => {
  for (const v of load('messages.json')) {
    const bytes = Buffer.from(v.hex, 'hex');
    assert.deepStrictEqual(protocol.decode(bytes, v.sender), v.message, v.name);
    assert.strictEqual(protocol.encode(v.message).toString('hex'), v.hex, v.name);
  }
});

test('every frame of malformed.json is rejected with its code', () => {
  for (const v of load('malformed.json')) {
    assert.throws(() => protocol.decode(Buffer.from(v.hex, 'hex'), v.sender),
      (err) => err instanceof protocol.ProtocolError && err.code === v.code, v.name);
  }
});

test('the transcript: every frame decodes to its message; every request gets a valid reply', () => {
  const lines = fs.readFileSync(path.join(VECTORS, 'transcript.jsonl'), 'utf8').trim().split('\n');
  const bin = fs.readFileSync(path.join(VECTORS, 'transcript.bin'));
  let pos = 0;
  for (const line of lines) {
    const entry = JSON.parse(line);
    const len = bin.readUInt32BE(pos);
    const frame = bin.subarray(pos + 4, pos + 4 + len);
    pos += 4 + len;
    const sender = entry.from === 'bot' ? 'bot' : 'referee';
    const message = protocol.decode(frame, sender);
    assert.deepStrictEqual(message, entry.message);
    if (sender === 'bot') assert.strictEqual(protocol.encode(entry.message).toString('hex'), frame.toString('hex'));
    if (message.type === 'request') {
      const answer = decide(message);
      protocol.decode(protocol.encode(answer), 'bot');
      if (answer.option !== null) assert.ok(answer.option < message.options.length);
      else for (const card of answer.action.give) assert.ok(message.observation.hand.includes(card));
    }
  }
  assert.strictEqual(pos, bin.length);
});
