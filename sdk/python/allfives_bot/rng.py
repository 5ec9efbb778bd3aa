"""The project's random numbers: the rules core's (sdk/core/include/allfives/core/rng.h),
bound from C++, so they are bit for bit those of the referee and the C++ SDK.

``MatchInfo.seed`` is ``match_seed(--seed, match id, seat)``, as in the C++ SDK, and a bot
that draws from ``SplitMix64(info.seed)`` makes the same draws as a C++ bot doing the same.
"""

from . import model  # noqa: F401  (registers the value types the core converts to)
from ._core import SplitMix64, derive_seed, fnv1a64, match_seed

__all__ = ["SplitMix64", "derive_seed", "fnv1a64", "match_seed"]
