"""The project's random numbers, bit for bit as in the rules core (sdk/core/.../rng.h).

``MatchInfo.seed`` is computed here exactly as the C++ SDK computes it, and a bot that draws
from ``SplitMix64(info.seed)`` makes the same draws as a C++ bot doing the same.
"""

_MASK = (1 << 64) - 1


class SplitMix64:
    """SplitMix64 (Steele, Lea, Flood 2014), 64-bit state."""

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK

    def next(self) -> int:
        """The next 64-bit output."""
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """Uniform in [0, bound), 0 < bound < 2**32, by rejection as in the C++ code."""
        limit = _MASK - _MASK % bound
        while True:
            r = self.next()
            if r < limit:
                return r % bound


def derive_seed(seed: int, index: int) -> int:
    """A seed for sub-stream ``index`` of ``seed``."""
    a = SplitMix64(seed)
    b = SplitMix64(a.next() ^ ((index * 0xD1B54A32D192ED03) & _MASK))
    return b.next()


def fnv1a64(text: str) -> int:
    """FNV-1a, 64 bits, of the UTF-8 bytes of ``text``."""
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x00000100000001B3) & _MASK
    return h


def match_seed(base_seed: int, match_id: str, seat: int) -> int:
    """``MatchInfo.seed``: a function of the --seed flag, the match id and the seat only."""
    return derive_seed(derive_seed(base_seed, fnv1a64(match_id)), seat)
