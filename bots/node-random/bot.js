'use strict';
// node-random: a random legal option at every decision, written from PROTOCOL.md alone.
const zmq = require('zeromq');
const protocol = require('./protocol');

function randomIndex(n) { return Math.floor(Math.random() * n); }

function hello(token) {
  return { type: 'hello', protocol: 1, token, name: 'node-random', version: '1.0.0', capabilities: ['multi_game', 'auto_pass'] };
}

function reply(id, option, action) {
  return { type: 'reply', id, option, action, call_tichu: false, wish: null };
}

/** The reply to one request (PROTOCOL.md section 6): never call, random option otherwise. */
function decide(request) {
  const { kind, options, observation } = request;
  if (kind === 'exchange') {
    const hand = [...observation.hand];
    const give = [];
    for (let i = 0; i < 3; i++) give.push(hand.splice(randomIndex(hand.length), 1)[0]);
    return reply(request.id, null, { action: 'exchange', give });
  }
  if (kind === 'grand_tichu' || kind === 'tichu') return reply(request.id, 0, null);
  return reply(request.id, randomIndex(options.length), null);
}

async function main() {
  const endpoint = process.env.TICHU_ENDPOINT;
  const token = process.env.TICHU_TOKEN;
  if (!endpoint || token === undefined) {
    console.error('node-random: TICHU_ENDPOINT and TICHU_TOKEN must be set (the referee starts this bot)');
    return 2;
  }
  const socket = new zmq.Dealer({ linger: 1000, maxMessageSize: protocol.MAX_MESSAGE_BYTES });
  socket.connect(endpoint);
  await socket.send(protocol.encode(hello(token)));
  try {
    for (;;) {
      const [frame] = await socket.receive();
      const message = protocol.decode(frame, 'referee');
      if (message.type === 'request') await socket.send(protocol.encode(decide(message)));
      else if (message.type === 'end' && !message.more_games) return 0;
      else if (message.type === 'reject' || message.type === 'error') {
        console.error(`node-random: ${message.type}: ${message.message}`);
        return 1;
      }
    }
  } finally {
    socket.close();
  }
}

if (require.main === module) {
  main().then((code) => { process.exitCode = code; }, (err) => { console.error(err); process.exitCode = 1; });
}

module.exports = { decide, hello, reply };
