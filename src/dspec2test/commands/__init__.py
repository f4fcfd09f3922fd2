"""One module per CLI subcommand: `add_arguments(parser)` and `main(args, out, err) -> int`."""

from dspec2test.options import BVA_EXTREME  # `--bva` without N: the extreme used where a value is unbounded

__all__ = ["BVA_EXTREME"]
