#!/usr/bin/env python3
"""Send one mconsole request to a UML kernel and read its reply, optionally
only after a pause: a client that is alive but does not read, as
uml_mconsole is while the pipe it writes to is full.

Usage: mconsole_client.py [--pause S] [--timeout S] [--out FILE] SOCKET WORD...

The reply's text goes to FILE (default: stdout); to stderr go
"sent-at=T" once the request is sent, and at the end
"read-at=T packets=N bytes=B final=yes|no", T the time.time() of the send
and of the first read.  The exit status is 0 when the last packet (more ==
0) came, 1 when none came for --timeout seconds (default 30).
"""
import argparse
import os
import socket
import struct
import sys
import time

MAGIC = 0xCAFEBABE
VERSION = 2
MAX_DATA = 512


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pause", type=float, default=0, help="seconds before the first read")
    ap.add_argument("--timeout", type=float, default=30, help="seconds to wait for a packet")
    ap.add_argument("--out", help="file for the reply's text")
    ap.add_argument("socket")
    ap.add_argument("words", nargs="+")
    a = ap.parse_args()

    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    # The kernel replies to the sender's address: bind one (abstract, so
    # that nothing is left behind).
    s.bind("\0mconsole-client-%d" % os.getpid())
    cmd = " ".join(a.words).encode()
    if len(cmd) >= MAX_DATA:
        sys.exit("request too long")
    s.sendto(struct.pack("<III%ds" % MAX_DATA, MAGIC, VERSION, len(cmd), cmd), a.socket)
    print("sent-at=%.3f" % time.time(), file=sys.stderr, flush=True)
    time.sleep(a.pause)

    read_at = time.time()
    s.settimeout(a.timeout)
    text, packets, final = b"", 0, False
    while not final:
        try:
            pkt = s.recv(4096)
        except socket.timeout:
            break
        _err, more, length = struct.unpack_from("<III", pkt)
        text += pkt[12:12 + length].rstrip(b"\0")
        packets += 1
        final = not more
    if a.out:
        with open(a.out, "wb") as f:
            f.write(text)
    else:
        sys.stdout.buffer.write(text)
    print("read-at=%.3f packets=%d bytes=%d final=%s"
          % (read_at, packets, len(text), "yes" if final else "no"), file=sys.stderr)
    return 0 if final else 1


if __name__ == "__main__":
    sys.exit(main())
