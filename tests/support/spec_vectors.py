#!/usr/bin/env python3
"""Recompute the test vectors of protocol/SPEC.md section 8 ("Test vectors").

Independent of libsodium and of racesim's C code: it follows the text of
SPEC.md section 8 using python3-cryptography (X25519, Ed25519,
ChaCha20-Poly1305) and Python's hashlib (BLAKE2b). It is a tool for whoever
changes the protocol next, not part of the test suite:

    python3 tests/support/spec_vectors.py              # version from protocol.h
    python3 tests/support/spec_vectors.py --version 5  # any version
    python3 tests/support/spec_vectors.py --check      # compare with SPEC.md
    python3 tests/support/spec_vectors.py --c          # tests/test_secure.c constants

It prints the contents of SPEC.md's vector block in the same layout; paste
it between the ``` fences and the hex into tests/test_secure.c's V_*
constants (--c prints those).
"""

import argparse
import hashlib
import os
import re
import sys

try:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.x25519 import (
        X25519PrivateKey,
        X25519PublicKey,
    )
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
except ImportError:  # pragma: no cover
    sys.exit("spec_vectors.py needs python3-cryptography (apt-get install python3-cryptography)")

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SPEC = os.path.join(ROOT, "protocol", "SPEC.md")
HEADER = os.path.join(ROOT, "protocol", "include", "racesim", "protocol.h")

RAW = serialization.Encoding.Raw
RAW_PUB = serialization.PublicFormat.Raw
RAW_PRIV = serialization.PrivateFormat.Raw

# Section 8, "The key exchange".
HELLO_TYPE = 1
KIND_OFFER = 1
KIND_REPLY = 2
OFFER_LEN = 160
REPLY_LEN = 132
SIG_CONTEXT = b"racesim key reply"  # 17 ASCII bytes
assert len(SIG_CONTEXT) == 17

# Section 1 / 8: channels 0 and 3 are reliable (1-byte seq), 1 and 2 are
# unreliable (2-byte seq).
RELIABLE = {0: True, 1: False, 2: False, 3: True}
TAG_LEN = 16


def header_version():
    with open(HEADER, encoding="utf-8") as f:
        m = re.search(r"#define\s+RS_PROTO_VERSION\s+(\d+)u?", f.read())
    if not m:
        sys.exit("RS_PROTO_VERSION not found in " + HEADER)
    return int(m.group(1))


def x25519_public(secret):
    """X25519(secret, 9): the public half (the scalar is clamped, as in RFC 7748)."""
    return X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(RAW, RAW_PUB)


def x25519(secret, public):
    return X25519PrivateKey.from_private_bytes(secret).exchange(
        X25519PublicKey.from_public_bytes(public))


def kx_seed_keypair(seed):
    """crypto_kx_seed_keypair: secret key BLAKE2b-256(seed), public X25519 of it."""
    sk = hashlib.blake2b(seed, digest_size=32).digest()
    return sk, x25519_public(sk)


def kx_session_keys(q, client_pk, server_pk):
    """h = BLAKE2b-512(q || client public || server public);
    client receives with h[0..32), sends with h[32..64)."""
    h = hashlib.blake2b(q + client_pk + server_pk, digest_size=64).digest()
    return h[:32], h[32:]  # (client rx, client tx)


def u16le(v):
    return v.to_bytes(2, "little")


def key_offer(version, client_pk):
    offer = bytes([HELLO_TYPE]) + u16le(version) + bytes([KIND_OFFER]) + client_pk
    offer += bytes(OFFER_LEN - len(offer))
    assert len(offer) == OFFER_LEN
    return offer


def key_reply(version, identity, server_eph_pk, offer):
    server_pk = identity.public_key().public_bytes(RAW, RAW_PUB)
    head = bytes([HELLO_TYPE]) + u16le(version) + bytes([KIND_REPLY]) + server_pk + server_eph_pk
    assert len(head) == 68
    sig = identity.sign(SIG_CONTEXT + offer + head)
    reply = head + sig
    assert len(reply) == REPLY_LEN
    identity.public_key().verify(sig, SIG_CONTEXT + offer + head)
    return reply


def seal(key, channel, counter, msg):
    """A sealed packet: seq (low 8 or 16 bits of the counter, LE), then the
    ChaCha20-Poly1305 (IETF) ciphertext and tag; nonce = channel, three zero
    bytes, counter as u64 LE; no associated data."""
    nonce = bytes([channel, 0, 0, 0]) + counter.to_bytes(8, "little")
    sealed = ChaCha20Poly1305(key).encrypt(nonce, msg, None)
    assert len(sealed) == len(msg) + TAG_LEN
    seq_len = 1 if RELIABLE[channel] else 2
    seq = (counter & ((1 << (8 * seq_len)) - 1)).to_bytes(seq_len, "little")
    # The receiver must get the message back.
    assert ChaCha20Poly1305(key).decrypt(nonce, sealed, None) == msg
    return seq + sealed


def compute(version):
    server_seed = bytes(range(0x00, 0x20))
    client_eph_seed = bytes(range(0x20, 0x40))
    server_eph_seed = bytes(range(0x40, 0x60))

    identity = Ed25519PrivateKey.from_private_bytes(server_seed)
    server_pk = identity.public_key().public_bytes(RAW, RAW_PUB)

    c_sk, c_pk = kx_seed_keypair(client_eph_seed)
    s_sk, s_pk = kx_seed_keypair(server_eph_seed)

    offer = key_offer(version, c_pk)
    reply = key_reply(version, identity, s_pk, offer)

    q_client = x25519(c_sk, s_pk)
    q_server = x25519(s_sk, c_pk)
    assert q_client == q_server
    client_rx, client_tx = kx_session_keys(q_client, c_pk, s_pk)
    server_tx, server_rx = client_rx, client_tx  # the other way round

    return {
        "server_key": server_pk,
        "offer": offer,
        "reply": reply,
        "client_tx": client_tx,
        "client_rx": client_rx,
        "seal_control_0": seal(client_tx, 0, 0, b"racesim"),
        "seal_input_300": seal(client_tx, 1, 300, bytes([5, 1, 2, 3])),
        "seal_frame_70000": seal(server_tx, 2, 70000, bytes([7, 42])),
    }


def spec_block(v):
    """The lines between the ``` fences of SPEC.md's vector block."""
    label = 19  # column of the hex after "client receive key "
    seal_label = 47
    lines = []

    def kv(name, data):
        lines.append(name.ljust(label) + data.hex())

    def wrapped(name, data, width=36):
        chunks = [data[i:i + width] for i in range(0, len(data), width)]
        lines.append(name.ljust(label) + chunks[0].hex())
        for c in chunks[1:]:
            lines.append(" " * label + c.hex())

    kv("server public key", v["server_key"])
    offer = v["offer"]
    lines.append("KEY_OFFER".ljust(label) + offer[:36].hex())
    assert offer[36:] == bytes(len(offer) - 36)
    lines.append(" " * label + "followed by %d zero bytes" % (len(offer) - 36))
    wrapped("KEY_REPLY", v["reply"])
    kv("client send key", v["client_tx"])
    kv("client receive key", v["client_rx"])
    lines.append('client, channel 0, counter 0, "racesim"'.ljust(seal_label)
                 + v["seal_control_0"].hex())
    lines.append("client, channel 1, counter 300, 05 01 02 03".ljust(seal_label)
                 + v["seal_input_300"].hex())
    lines.append("server, channel 2, counter 70000, 07 2a".ljust(seal_label)
                 + v["seal_frame_70000"].hex())
    return "\n".join(lines) + "\n"


def c_constants(v):
    """tests/test_secure.c's V_* constants."""
    out = []

    def const(name, data, width=36):
        h = data.hex()
        line = 'static const char %s[] = "%s";' % (name, h)
        if len(line) <= 100:  # the project's column limit
            out.append(line)
            return
        out.append("static const char %s[] =" % name)
        parts = [h[i:i + 2 * width] for i in range(0, len(h), 2 * width)]
        for i, p in enumerate(parts):
            out.append('    "%s"%s' % (p, ";" if i == len(parts) - 1 else ""))

    const("V_SERVER_KEY", v["server_key"])
    const("V_OFFER", v["offer"])
    const("V_REPLY", v["reply"])
    const("V_CLIENT_TX", v["client_tx"])
    const("V_CLIENT_RX", v["client_rx"])
    const("V_SEAL_CONTROL_0", v["seal_control_0"])
    const("V_SEAL_INPUT_300", v["seal_input_300"])
    const("V_SEAL_FRAME_70000", v["seal_frame_70000"])
    return "\n".join(out) + "\n"


def spec_current_block():
    with open(SPEC, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^### Test vectors\n.*?^```\n(.*?)^```$", text, re.S | re.M)
    if not m:
        sys.exit("no vector block in " + SPEC)
    return m.group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--version", type=int, default=None,
                    help="protocol version (default: RS_PROTO_VERSION in protocol.h)")
    ap.add_argument("--check", action="store_true",
                    help="compare with the block in protocol/SPEC.md; exit 1 if it differs")
    ap.add_argument("--c", action="store_true", help="print tests/test_secure.c's constants")
    args = ap.parse_args()
    version = args.version if args.version is not None else header_version()
    v = compute(version)
    block = spec_block(v)
    if args.check:
        have = spec_current_block()
        if have == block:
            print("SPEC.md section 8 vectors match version %d" % version)
            return 0
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            have.splitlines(True), block.splitlines(True),
            "SPEC.md", "spec_vectors.py --version %d" % version))
        return 1
    sys.stdout.write(c_constants(v) if args.c else block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
