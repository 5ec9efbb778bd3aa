"""The generated protocol modules, with a clear message when they are missing.

The build generates them from proto/ (the CMake target ``python_sdk`` runs protoc with
grpc_python_plugin into ``build/python``); nothing generated is kept in the source tree.
``build/python/run_bot`` puts them and this SDK on the Python path.

The health messages come from proto/grpc/health/v1/health.proto, generated under
``allfives_health/`` so that their package path (``grpc.health.v1``) cannot shadow grpcio's
own ``grpc`` package.
"""

try:
    from allfives.v1 import bot_pb2, bot_pb2_grpc, common_pb2  # noqa: F401
    from allfives_health.grpc.health.v1 import health_pb2  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on how the bot was started
    raise ImportError(
        "allfives_bot: the generated protocol stubs are not on the Python path "
        f"({error}). Build the project (cmake --build build builds the python_sdk target) "
        "and start the bot with build/python/run_bot BOT.py, which sets PYTHONPATH."
    ) from error

__all__ = ["bot_pb2", "bot_pb2_grpc", "common_pb2", "health_pb2"]
