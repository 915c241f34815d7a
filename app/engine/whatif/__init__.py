"""The what-if sandbox: a scenario, a student's changes to its world and interventions at its
steps, run deterministically and compared with the scenario as written (docs/WHATIF.md).

The functions a page or the command line calls are re-exported here.
"""

from __future__ import annotations

from .codec import decode, encode, from_text, load
from .compare import Comparison, Tally, compare, first_difference
from .describe import describe, describe_all
from .model import FORMAT, INTERVENTIONS, KINDS, WORLD_CHANGES, Change, WhatIf, WhatIfError
from .sandbox import WhatIfRun, run_whatif, try_change

__all__ = [
    "FORMAT",
    "INTERVENTIONS",
    "KINDS",
    "WORLD_CHANGES",
    "Change",
    "Comparison",
    "Tally",
    "WhatIf",
    "WhatIfError",
    "WhatIfRun",
    "compare",
    "decode",
    "describe",
    "describe_all",
    "encode",
    "first_difference",
    "from_text",
    "load",
    "run_whatif",
    "try_change",
]
