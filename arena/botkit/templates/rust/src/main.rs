//! __NAME__: a Tichu Arena bot in Rust with the zmq and rmp-serde crates (see
//! protocol/PROTOCOL.md). Change decide(). Build: `cargo build --release`, offline, from
//! Debian's crate sources (cargo, librust-zmq-dev, librust-rmp-serde-dev,
//! librust-serde+serde-derive-dev).

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::env;
use std::error::Error;
use std::time::{SystemTime, UNIX_EPOCH};

/// Any message from the referee: its `type` is all we look at first.
#[derive(Deserialize)]
struct Message {
    r#type: String,
}

/// A `request` (PROTOCOL.md 5.4): only the fields this bot uses; the others are skipped.
#[derive(Deserialize)]
struct Request {
    id: u64,
    kind: String,
    observation: Observation,
    options: Option<Vec<IgnoredAny>>,
}

#[derive(Deserialize)]
struct Observation {
    hand: Vec<String>,
}

#[derive(Serialize)]
struct Hello {
    r#type: &'static str,
    protocol: u32,
    token: String,
    name: &'static str,
    version: &'static str,
    capabilities: Vec<String>,
}

/// A `reply` (PROTOCOL.md 5.5): exactly one of `option` and `action` is set.
#[derive(Serialize)]
struct Reply {
    r#type: &'static str,
    id: u64,
    option: Option<usize>,
    action: Option<Exchange>,
    call_tichu: bool,
    wish: Option<String>,
}

#[derive(Serialize)]
struct Exchange {
    action: &'static str,
    give: Vec<String>,
}

/// The reply to one request: the first three cards to exchange, a random option otherwise.
fn decide(request: &Request, random: &mut Random) -> Reply {
    let mut reply = Reply { r#type: "reply", id: request.id, option: None, action: None,
                            call_tichu: false, wish: None };
    match request.kind.as_str() {
        "exchange" => {
            let give = request.observation.hand[..3].to_vec();
            reply.action = Some(Exchange { action: "exchange", give });
        }
        "grand_tichu" | "tichu" => reply.option = Some(0), // option 0: no call
        _ => {
            let count = request.options.as_ref().map_or(1, Vec::len);
            reply.option = Some(random.below(count));
        }
    }
    reply
}

/// A small random number generator (xorshift64), seeded from the clock and the process id.
struct Random(u64);

impl Random {
    fn new() -> Random {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        Random((nanos as u64) ^ (u64::from(std::process::id()) << 32) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let context = zmq::Context::new();
    let socket = context.socket(zmq::DEALER)?;
    socket.set_linger(1000)?;
    socket.connect(&env::var("TICHU_ENDPOINT")?)?;
    let hello = Hello { r#type: "hello", protocol: 1, token: env::var("TICHU_TOKEN")?,
                        name: "__NAME__", version: "0.1.0", capabilities: vec![] };
    socket.send(rmp_serde::to_vec_named(&hello)?, 0)?;
    let mut random = Random::new();
    loop {
        let frame = socket.recv_bytes(0)?;
        let message: Message = rmp_serde::from_slice(&frame)?;
        match message.r#type.as_str() {
            "request" => {
                let request: Request = rmp_serde::from_slice(&frame)?;
                socket.send(rmp_serde::to_vec_named(&decide(&request, &mut random))?, 0)?;
            }
            "end" | "reject" | "error" => return Ok(()),
            _ => {} // welcome, events: nothing to answer
        }
    }
}
