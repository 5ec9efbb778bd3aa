"""``run()``: the command line, the gRPC server and the stop signals.

The server implements ``allfives.v1.Bot`` (proto/allfives/v1/bot.proto) and
``grpc.health.v1.Health/Check`` (Debian's python3-grpcio ships no grpc_health package, so the
SDK answers Check itself with the messages generated from proto/grpc/health/v1/health.proto).
Every PlayMatch stream runs on its own thread of the server's pool with its own
``MatchSession`` and bot object.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
import time
from concurrent import futures
from typing import Callable, Optional, Sequence

import grpc

from .bot import Bot
from .model import MatchInfo
from .session import PROTOCOL_VERSION, MatchSession, SessionError, log_line
from .stubs import bot_pb2_grpc, health_pb2

# How long running matches may go on after SIGTERM/SIGINT before their streams are cancelled.
SHUTDOWN_GRACE_S = 1.0
# Threads serving streams and health checks. The referee plays one match at a time on a bot
# process it started; a bot reached at an address may get several at once.
MAX_WORKERS = 32


class _BotService(bot_pb2_grpc.BotServicer):
    """allfives.v1.Bot: one MatchSession (and one bot object) per PlayMatch stream."""

    def __init__(self, name: str, version: str, factory: Callable[[MatchInfo], Bot],
                 seed: int, args: object) -> None:
        self._name = name
        self._version = version
        self._factory = factory
        self._seed = seed
        self._args = args
        self._lock = threading.Condition()
        self._active = 0
        self._draining = False

    def PlayMatch(self, request_iterator, context):  # noqa: N802 - the gRPC method name
        """Serves one match: read, handle, answer, until MatchEnd or an error."""
        with self._lock:
            if self._draining:
                context.abort(grpc.StatusCode.UNAVAILABLE, "the bot is shutting down")
            self._active += 1
        try:
            session = MatchSession(self._name, self._version, self._factory, self._seed,
                                   self._args)
            iterator = iter(request_iterator)
            while True:
                try:
                    message = next(iterator)
                except StopIteration:
                    log_line(f"{session.label}: the referee closed the stream before MatchEnd")
                    return
                except grpc.RpcError:
                    log_line(f"{session.label}: the stream was cancelled before MatchEnd")
                    return
                received = time.monotonic()
                try:
                    answer = session.handle(message, received)
                except SessionError as error:
                    log_line(f"{session.label}: ending the stream: {error.message}")
                    context.abort(grpc.StatusCode[error.code], error.message)
                if answer is not None:
                    yield answer
                if session.finished:
                    return
        finally:
            with self._lock:
                self._active -= 1
                self._lock.notify_all()

    def start_draining(self) -> None:
        """Refuses new matches from now on."""
        with self._lock:
            self._draining = True

    def wait_idle(self, timeout: float) -> bool:
        """Waits up to ``timeout`` seconds for running matches to end; True if none runs."""
        with self._lock:
            return self._lock.wait_for(lambda: self._active == 0, timeout)


class _Health:
    """grpc.health.v1.Health/Check: SERVING for "" and "allfives.v1.Bot" until shutdown."""

    SERVICES = ("", "allfives.v1.Bot")

    def __init__(self) -> None:
        self.serving = True

    def check(self, request, context):
        """The standard Check: NOT_FOUND for a service this server does not have."""
        if request.service not in self.SERVICES:
            context.abort(grpc.StatusCode.NOT_FOUND, f"unknown service {request.service!r}")
        status = health_pb2.HealthCheckResponse
        return status(status=status.SERVING if self.serving else status.NOT_SERVING)

    def handler(self) -> grpc.GenericRpcHandler:
        """The service's handler, registered like a generated one."""
        return grpc.method_handlers_generic_handler("grpc.health.v1.Health", {
            "Check": grpc.unary_unary_rpc_method_handler(
                self.check,
                request_deserializer=health_pb2.HealthCheckRequest.FromString,
                response_serializer=health_pb2.HealthCheckResponse.SerializeToString),
        })


class BotServer:
    """A started server; ``run()`` uses it, and tests can too (``port`` for host:0)."""

    def __init__(self, listen: str, name: str, version: str,
                 factory: Callable[[MatchInfo], Bot], seed: int = 0,
                 args: object = None) -> None:
        self._service = _BotService(name, version, factory, seed, args)
        self._health = _Health()
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=MAX_WORKERS))
        bot_pb2_grpc.add_BotServicer_to_server(self._service, self._server)
        self._server.add_generic_rpc_handlers((self._health.handler(),))
        try:
            port = self._server.add_insecure_port(listen)
        except RuntimeError as error:  # newer grpcio raises, older returns 0
            raise OSError(f"cannot listen on {listen}: {error}") from None
        is_unix = listen.startswith("unix")
        if not is_unix and port == 0:
            raise OSError(f"cannot listen on {listen}")
        self.port = 0 if is_unix else port
        self._server.start()
        self._stopped = False

    def shutdown(self, grace: float = SHUTDOWN_GRACE_S) -> None:
        """Refuses new matches, reports NOT_SERVING, gives running matches ``grace`` seconds,
        then stops at once (cancelling what still runs)."""
        if self._stopped:
            return
        self._stopped = True
        self._service.start_draining()
        self._health.serving = False
        if not self._service.wait_idle(grace):
            log_line("matches still running after the shutdown grace period are cancelled")
        self._server.stop(0).wait()


def _listen_address(text: str) -> str:
    """argparse type for --listen: unix:/path (or unix-abstract:name) or host:port."""
    if text.startswith(("unix:", "unix-abstract:")):
        if not text.split(":", 1)[1]:
            raise argparse.ArgumentTypeError("the unix socket path is empty")
        return text
    if not re.fullmatch(r".+:[0-9]+", text):
        raise argparse.ArgumentTypeError(
            f'expected unix:/path/to.sock or host:port, got "{text}"')
    return text


def _seed(text: str) -> int:
    """argparse type for --seed: 0 .. 2**64-1."""
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f'"{text}" is not a number') from None
    if not 0 <= value < 1 << 64:
        raise argparse.ArgumentTypeError("the seed must be 0 .. 2^64-1")
    return value


def run(bot_factory: Callable[[MatchInfo], Bot], name: str, version: str,
        argv: Optional[Sequence[str]] = None,
        extra_flags: Optional[Callable[[argparse.ArgumentParser], None]] = None) -> int:
    """Parses the standard flags and serves until SIGTERM/SIGINT, then drains and returns 0.

    ``bot_factory(info)`` makes the bot for one match; a ``Bot`` subclass itself will do.
    Standard flags, as in the C++ SDK:

      --listen ADDRESS   where to serve: unix:/path/to.sock or host:port (required)
      --seed N           base of MatchInfo.seed (default 0)

    ``extra_flags(parser)`` may add the bot's own options; their values are in
    ``MatchInfo.args``. Returns 2 for bad flags (argparse's exit status) and 1 if the server
    cannot start (the reason goes to stderr). Use as ``sys.exit(run(MyBot, "mine", "1.0"))``.
    """
    parser = argparse.ArgumentParser(
        description=f"{name} {version}: an All Fives (Muggins) domino bot. It serves the "
        f"allfives.v1.Bot gRPC protocol (version {PROTOCOL_VERSION}) and grpc.health.v1.Health "
        "on --listen until SIGTERM or SIGINT; the referee starts it and plays matches "
        "against it.",
        epilog=f"Example: {name} --listen unix:/tmp/bot.sock --seed 7. SIGTERM or SIGINT "
        "stops it: matches in progress get a moment to finish, then the bot exits with "
        "status 0. Exit status 2: bad flags; 1: the server could not start.")
    parser.add_argument("--listen", required=True, type=_listen_address, metavar="ADDRESS",
                        help="where to serve: unix:/path/to.sock or host:port "
                        "(port 0 picks a free one)")
    parser.add_argument("--seed", type=_seed, default=0, metavar="N",
                        help="base of the bot's per-match random seed (mixed with the match "
                        "id and seat, so runs with the same seed repeat); default 0")
    parser.add_argument("--version", action="version", version=f"{name} {version}")
    if extra_flags is not None:
        extra_flags(parser)
    args = parser.parse_args(argv)
    # What the bot prints reaches the referee's capture as it prints it (a pipe would hold it
    # in a block buffer): each line lands in the match, and the turn, that printed it.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)

    stop = threading.Event()
    signals = {"count": 0}

    def on_signal(signum, frame):  # noqa: ARG001 - the signal module's signature
        signals["count"] += 1
        if signals["count"] > 1:
            os.write(2, b"second stop signal: exiting without waiting for matches\n")
            os._exit(1)
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        try:
            server = BotServer(args.listen, name, version, bot_factory, args.seed, args)
        except OSError as error:
            log_line(f"{name}: {error}")
            return 1
        where = args.listen if server.port == 0 else re.sub(r"[0-9]+$", str(server.port),
                                                            args.listen)
        log_line(f"{name} {version} listening on {where}")
        while not stop.wait(0.5):
            pass
        log_line(f"{name}: stop signal received; shutting down")
        server.shutdown(SHUTDOWN_GRACE_S)
        return 0
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
