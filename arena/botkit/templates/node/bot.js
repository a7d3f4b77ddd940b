'use strict';
// __NAME__: a Tichu Arena bot in Node.js (see protocol/PROTOCOL.md). Change decide().
const zmq = require('zeromq');
const { encode, decode } = require('@msgpack/msgpack');

function decide(request) {
  const reply = { type: 'reply', id: request.id, option: null, action: null, call_tichu: false, wish: null };
  if (request.kind === 'exchange') {
    reply.action = { action: 'exchange', give: request.observation.hand.slice(0, 3) };
  } else if (request.kind === 'grand_tichu' || request.kind === 'tichu') {
    reply.option = 0; // no call
  } else {
    reply.option = Math.floor(Math.random() * request.options.length);
  }
  return reply;
}

async function main() {
  const socket = new zmq.Dealer({ linger: 1000 });
  socket.connect(process.env.TICHU_ENDPOINT);
  await socket.send(encode({ type: 'hello', protocol: 1, token: process.env.TICHU_TOKEN,
    name: '__NAME__', version: '0.1.0', capabilities: [] }));
  for (;;) {
    const [frame] = await socket.receive();
    const message = decode(frame);
    if (message.type === 'request') await socket.send(encode(decide(message)));
    else if (['end', 'reject', 'error'].includes(message.type)) break;
  }
  socket.close();
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
