"""CastStats: the statistics that cast, quantize_mx, quantize_nvfp4 and quantize_absmax fill
in when given one as stats_out= (docs/semantics.md section 14, tensorcast/stats.h)."""

from __future__ import annotations

import math
from typing import Any


class CastStats:
    """Statistics of one call, filled in by the call it is passed to as stats_out=.

    Each element's exact source value x is compared with the exact value y its output
    represents (code * scale for the quantizers):
      count                 elements
      nan_count, inf_count  NaN and +-Inf inputs (left out of the rest)
      amax                  the largest finite |x|
      saturated             finite inputs outside the output's range (clamped, wrapped or
                            overflowed)
      flushed               non-zero finite inputs whose output is zero
      sum_squared_error     sum of (y - x)^2 over the finite inputs with a finite output
      sum_squared_signal    sum of x^2 over the same elements
      error_count           those elements
    The sums run in a fixed order, so they are the same for any number of threads.
    """

    __slots__ = (
        "count",
        "nan_count",
        "inf_count",
        "saturated",
        "flushed",
        "amax",
        "sum_squared_error",
        "sum_squared_signal",
        "error_count",
    )

    def __init__(self) -> None:
        self.count = 0
        self.nan_count = 0
        self.inf_count = 0
        self.saturated = 0
        self.flushed = 0
        self.amax = 0.0
        self.sum_squared_error = 0.0
        self.sum_squared_signal = 0.0
        self.error_count = 0

    @property
    def rmse(self) -> float:
        """sqrt(sum_squared_error / error_count); 0.0 without elements."""
        if self.error_count == 0:
            return 0.0
        return math.sqrt(self.sum_squared_error / self.error_count)

    @property
    def sqnr_db(self) -> float:
        """10 log10(sum_squared_signal / sum_squared_error) in dB; inf when the error is 0."""
        if self.sum_squared_error == 0:
            return math.inf
        if self.sum_squared_signal == 0:
            return -math.inf
        return 10.0 * math.log10(self.sum_squared_signal / self.sum_squared_error)

    def __repr__(self) -> str:
        return (
            f"CastStats(count={self.count}, nan_count={self.nan_count}, "
            f"inf_count={self.inf_count}, saturated={self.saturated}, flushed={self.flushed}, "
            f"amax={self.amax!r}, rmse={self.rmse!r}, sqnr_db={self.sqnr_db!r})"
        )


def _stats_arg(stats_out: Any) -> Any:
    """stats_out as the extension takes it: None, or a CastStats (TypeError otherwise)."""
    if stats_out is None or isinstance(stats_out, CastStats):
        return stats_out
    raise TypeError(
        f"stats_out must be a tensorcast.CastStats or None, not {type(stats_out).__name__}"
    )
