"""One module per CLI subcommand: `add_arguments(parser)` and `main(args, out, err) -> int`."""

BVA_EXTREME = 100  # `--bva` without N: the extreme used where a value is unbounded
