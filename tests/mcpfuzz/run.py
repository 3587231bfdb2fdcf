"""mcpfuzz's command line, held to this machine and to a bounded time.

mcpfuzz starts an HTTP listener for out-of-band payloads (SSRF, blind command injection), bound to every
interface and advertised under the address of the default route, found with a UDP connect to a public
resolver. This runner keeps both on 127.0.0.1, so that a scan sends and invites traffic on loopback only.
It also shortens the pause after each out-of-band payload from 3 s to 0.1 s: the listener runs on
mcpfuzz's own event loop, which is idle while a call is in flight, so a server that fetched the URL or ran
the command while handling the call is recorded before its reply arrives; at 3 s, the 60 payloads sent to
ck3raven's ten tools took the command-injection module past its 60 s limit. Everything else is mcpfuzz as
published. Run it with the interpreter of the venv that `make fuzzers` builds.
"""

import socket
import sys

from mcpfuzz.cli import main
from mcpfuzz.engine import scanner
from mcpfuzz.modules import command_injection, ssrf
from mcpfuzz.utils import callback_server

LOOPBACK = "127.0.0.1"
OOB_WAIT = 0.1


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


class LoopbackCallbackServer(callback_server.CallbackServer):
    """The out-of-band listener, on loopback."""

    def __init__(self) -> None:
        super().__init__()
        self._bind_host = LOOPBACK


callback_server._find_free_port = free_loopback_port
callback_server._outbound_ip = lambda: LOOPBACK
scanner.CallbackServer = LoopbackCallbackServer
command_injection._OOB_WAIT = OOB_WAIT
ssrf._OOB_WAIT = OOB_WAIT

if __name__ == "__main__":
    sys.argv[0] = "mcpfuzz"
    sys.exit(main())
