"""The HTTP port `ck3raven serve --transport http` binds: the connections served from it send each piece of
a reply at once (TCP_NODELAY), so a reply's body never waits for the client to acknowledge its headers."""

import asyncio
import socket

from app.serving import _listener


def test_a_connection_accepted_from_the_http_port_sends_without_delay() -> None:
    listener = _listener("127.0.0.1", _free_port())
    assert listener is not None
    nodelay: list[int] = []

    async def serve_one() -> None:
        seen = asyncio.Event()

        async def answer(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            accepted = writer.get_extra_info("socket")
            nodelay.append(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            seen.set()
            writer.close()

        server = await asyncio.start_server(answer, sock=listener)  # as uvicorn serves the bound port
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", listener.getsockname()[1])
            await seen.wait()
            writer.close()

    asyncio.run(asyncio.wait_for(serve_one(), 20))
    assert len(nodelay) == 1
    assert nodelay[0] != 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
