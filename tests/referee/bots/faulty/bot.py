"""A deliberately broken bot for the referee's tests, written against PROTOCOL.md with raw
pyzmq and msgpack. It plays the first option until decision TICHU_TEST_FAULT_AT (default 5),
then misbehaves as TICHU_TEST_FAULT says:

exit_at_start, no_hello, wrong_token, wrong_version, crash (exits with TICHU_TEST_EXIT,
default 7), hang, garbage, truncated,
multi_frame, unknown_id, illegal, oversize, slow (replies after TICHU_TEST_DELAY seconds),
slow_all (every reply from decision TICHU_TEST_FAULT_AT on after TICHU_TEST_DELAY seconds),
crash_later (exits with code 3 TICHU_TEST_DELAY seconds after its reply, while another seat
is asked),
memory_hog, cpu_burn, fd_hog (to meet the resource limits), flood (many messages at once),
frame (sends the bytes TICHU_TEST_FRAME, hex, in place of a reply), stderr_flood, orphan (leaves a child process running), other_seat (answers another seat's
request id), snoop (tries to read other seats' cards from the files and environment it can
reach, and reports what it found on stderr).

With TICHU_TEST_FAULT=illegal, TICHU_TEST_ILLEGAL names the kind of illegal action, made at
the first request where it is possible: card_not_held, not_a_combination, too_low, wish_pass,
dog_on_bound_lead, dragon_to_partner, exchange_not_held, non_bomb_in_window.
(A bomb on the Dog cannot even be attempted: no request ever has the Dog on the table.) Otherwise the bot
plays the first option, and wishes whenever it plays the Mah Jong (so wishes bind).
"""

import os
import sys
import time

import msgpack
import zmq

fault = os.environ.get("TICHU_TEST_FAULT", "")
fault_at = int(os.environ.get("TICHU_TEST_FAULT_AT", "5"))
token = os.environ["TICHU_TOKEN"]

if fault == "exit_at_start":
    print("faulty bot: exiting at start", file=sys.stderr)
    sys.exit(3)

context = zmq.Context()
sock = context.socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 500)
sock.connect(os.environ["TICHU_ENDPOINT"])


def send(message):
    sock.send(msgpack.packb(message))


if fault == "no_hello":
    while True:  # past any hello limit, however long a busy machine needs it to be
        time.sleep(3600)
hello = {"type": "hello", "protocol": 1, "token": token, "name": "faulty", "version": "1"}
if fault == "wrong_token":
    hello["token"] = "not-" + token
if fault == "wrong_version":
    hello["protocol"] = 99
send(hello)

illegal_kind = os.environ.get("TICHU_TEST_ILLEGAL", "card_not_held")
RANKS = "23456789TJQKA"


def rank(card):
    return RANKS.index(card[0]) + 2 if card[0] in RANKS and len(card) == 2 else None


def illegal_action(message):
    """The illegal action of kind `illegal_kind` possible in this request, or None."""
    obs, kind = message["observation"], message["kind"]
    hand = obs["hand"]
    table = obs["table"]
    naturals = [c for c in hand if rank(c)]
    if illegal_kind == "card_not_held" and kind in ("play", "bomb"):
        other = next(c for c in ("2j", "2s", "2p", "2t", "3j") if c not in hand)
        return {"action": {"action": "play", "cards": [other]}}
    if illegal_kind == "not_a_combination" and kind == "play" and table is None:
        pair = next(([a, b] for a in naturals for b in naturals if rank(a) < rank(b)), None)
        return pair and {"action": {"action": "play", "cards": pair}}
    if illegal_kind == "too_low" and kind == "play" and table and \
            table["combination"] == "single" and rank(table["cards"][0]):
        low = next((c for c in naturals if rank(c) < rank(table["cards"][0])), None)
        return low and {"action": {"action": "play", "cards": [low]}}
    if illegal_kind == "wish_pass" and kind == "play" and message["must_fulfil_wish"] \
            and table is not None:
        return {"action": {"action": "pass"}}
    if illegal_kind == "dog_on_bound_lead" and kind == "play" and message["must_fulfil_wish"] \
            and table is None and "Dog" in hand:
        return {"action": {"action": "play", "cards": ["Dog"]}}
    if illegal_kind == "dragon_to_partner" and kind == "dragon_gift":
        return {"action": {"action": "give_dragon", "to": (obs["seat"] + 2) % 4}}
    if illegal_kind == "exchange_not_held" and kind == "exchange":
        other = next(c for c in ("2j", "2s", "2p", "2t", "3j") if c not in hand)
        return {"action": {"action": "exchange", "give": [other] + hand[:2]}}
    if illegal_kind == "non_bomb_in_window" and kind == "bomb":
        return {"action": {"action": "play", "cards": [naturals[0]]}} if naturals else None
    return None


def snoop(own_hand):
    """Every card name this process can find outside its own messages: its environment,
    its arguments, and the referee's environment and arguments in /proc."""
    import re
    names = re.compile(r"\b([2-9TJQKA][jspt]|Mahjong|Dog|Phoenix|Dragon)\b")
    texts = list(os.environ.values()) + sys.argv
    parent = os.getppid()
    for path in (f"/proc/{parent}/environ", f"/proc/{parent}/cmdline"):
        try:
            with open(path, "rb") as f:
                texts.append(f.read(1 << 20).decode("utf-8", "replace"))
        except OSError:
            pass
    return {m for t in texts for m in names.findall(t)} - set(own_hand)


decisions = 0
while True:
    message = msgpack.unpackb(sock.recv())
    if message["type"] in ("end", "error", "reject"):
        break
    if message["type"] != "request":
        continue
    decisions += 1
    if message["kind"] == "exchange":
        reply = {"type": "reply", "id": message["id"],
                 "action": {"action": "exchange", "give": message["observation"]["hand"][:3]}}
    else:
        reply = {"type": "reply", "id": message["id"], "option": 0}
        options = message["options"] or []
        if options and options[0].get("cards") and "Mahjong" in options[0]["cards"]:
            # Wish a rank of its own when it also holds the Dog (so that it may be bound to a
            # lead it would like to give away with the Dog), else a 2.
            hand = message["observation"]["hand"]
            own = [c for c in hand if rank(c)]
            reply["wish"] = own[-1][0] if "Dog" in hand and own else "2"
    if fault == "illegal":
        wrong = illegal_action(message)
        if wrong:
            send({"type": "reply", "id": message["id"], **wrong})
            continue
    if fault == "slow_all" and decisions >= fault_at:
        time.sleep(float(os.environ.get("TICHU_TEST_DELAY", "0")))
    if decisions == fault_at:
        if fault == "crash_later":
            import threading

            def crash_later():
                time.sleep(float(os.environ.get("TICHU_TEST_DELAY", "0.1")))
                print("faulty bot: crashing while another seat is asked", file=sys.stderr,
                      flush=True)
                os._exit(3)
            threading.Thread(target=crash_later, daemon=True).start()
        if fault == "flood":
            for _ in range(10000):
                send(reply)
            continue
        if fault == "stderr_flood":
            for _ in range(20000):
                sys.stderr.write("flood " * 20 + "\n")
        if fault == "orphan":
            import subprocess
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
        if fault == "other_seat":
            reply["id"] = message["id"] - 1
        if fault == "snoop":
            found = snoop(message["observation"]["hand"])
            print(f"snoop found {len(found)} hidden cards: {sorted(found)}", file=sys.stderr)
        if fault == "crash":
            print("faulty bot: crashing on purpose", file=sys.stderr)
            sys.exit(int(os.environ.get("TICHU_TEST_EXIT", "7")))
        if fault == "hang":
            while True:  # past any decision limit and bank
                time.sleep(3600)
        if fault == "memory_hog":
            hog = [bytearray(64 << 20) for _ in range(1024)]  # 64 GiB, far past any limit
        if fault == "cpu_burn":
            while True:
                pass
        if fault == "fd_hog":
            files = [open(os.devnull) for _ in range(100000)]
        if fault == "slow":
            time.sleep(float(os.environ.get("TICHU_TEST_DELAY", "0")))
        if fault == "garbage":
            sock.send(b"\xc1\xc1 this is not msgpack")
            continue
        if fault == "truncated":
            sock.send(msgpack.packb(reply)[:-2])
            continue
        if fault == "multi_frame":
            sock.send_multipart([msgpack.packb(reply), b"extra"])
            continue
        if fault == "unknown_id":
            reply["id"] = message["id"] + 1000
        if fault == "frame":  # the exact bytes of TICHU_TEST_FRAME (hex), {id} patched in
            sock.send(bytes.fromhex(os.environ["TICHU_TEST_FRAME"].replace(
                "{id}", msgpack.packb(message["id"]).hex())))
            continue
        if fault == "oversize":
            sock.send(b"\x00" * (2 << 20))
            continue
    send(reply)
sock.close()
context.term()
