"""The protocol's generated modules (allfives_bot.protocol), with a clear message when missing.

They are generated from proto/ when the package is built, never kept in the source tree:
``pip install sdk/python`` generates them into the installed package, and the CMake build
into ``build/python/allfives_bot/protocol`` (``build/python/run_bot`` puts ``build/python``
on the Python path). sdk/python/generate_protocol.py does both.
"""

try:
    from .protocol import bot_pb2, bot_pb2_grpc, common_pb2, health_pb2  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on how the bot was started
    raise ImportError(
        "allfives_bot: the generated protocol modules are missing "
        f"({error}). This is the package's source folder: install the package "
        "(pip install sdk/python) or build the project and start the bot with "
        "build/python/run_bot BOT.py."
    ) from error

__all__ = ["bot_pb2", "bot_pb2_grpc", "common_pb2", "health_pb2"]
