#!/usr/bin/env python3
"""A TCP proxy that delays every byte by a fixed time each way: a round trip inside one data centre, on loopback.

Usage: python3 Benchmarks/delay_proxy.py --listen PORT --to HOST:PORT [--delay-ms 1]
Prints `listening PORT` once it accepts connections. Each chunk read from one side is written to the other side
`--delay-ms` after it was read, in order (a fixed one-way delay, not a rate limit: bandwidth is not reduced), so a
request and its answer take twice the delay longer than without the proxy. Used by Benchmarks/postgres_bench.py
(make bench-pg) for both the hosts and pgbench.
"""
import argparse
import asyncio
import socket


async def pipe(reader, writer, delay):
    loop = asyncio.get_running_loop()

    def send(data):
        if not writer.is_closing():
            writer.write(data)

    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            # Timers with the same delay fire in the order they were set: the byte stream keeps its order.
            loop.call_later(delay, send, data)
    except (ConnectionError, OSError):
        pass
    await asyncio.sleep(delay)
    if not writer.is_closing():
        writer.close()


async def serve(listen, host, port, delay):
    async def accept(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        for stream in (client_writer, server_writer):
            sock = stream.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(pipe(client_reader, server_writer, delay), pipe(server_reader, client_writer, delay))

    server = await asyncio.start_server(accept, "127.0.0.1", listen)
    print(f"listening {listen}", flush=True)
    async with server:
        await server.serve_forever()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--to", required=True, help="HOST:PORT of the server")
    parser.add_argument("--delay-ms", type=float, default=1.0)
    options = parser.parse_args()
    host, port = options.to.rsplit(":", 1)
    asyncio.run(serve(options.listen, host, int(port), options.delay_ms / 1000))


if __name__ == "__main__":
    main()
