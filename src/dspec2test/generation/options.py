"""What a generation run is asked for: the command line's choices and the limits of one member."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GenerateOptions:
    methods: tuple[str, ...] = ()  # --method NAME (qualified or short); empty: every member with a contract
    fdnf: bool = False  # --fdnf
    bva: int | None = None  # --bva [N]: None off, else the default extreme (100)
    diverse: bool = True  # with bva: diverse scenarios after the boundary ones (partition/diversity.py)
    simplify: bool = True  # concrete expected outputs where unique (--no-simplify: off)
    repeat: int = 1  # --repeat N (ignored with bva)
    search: bool = True  # inputs from the search (search/) beside the solver's; --no-search: the solver's only
    per_partition: int = 4  # tests the search gives a partition at most
    search_tests: int = 40  # and a member, about (each partition gets one at least)
    max_partitions: int = 64
    length_limit: int = 10
    timeout_s: float = 10.0  # Z3 time limit per query
    unverified: tuple[str, ...] | None = None  # members selected by `dafny verify` failures, plus {:testEntry}
    jobs: int = 1  # members generated at once, each in a child process of its own
    isolate: bool = True  # a child process per member, so a Z3 crash or runaway costs that member only
    member_timeout_s: float = 120.0  # wall limit of one member's whole generation; its tests so far are kept
    probe: bool = True  # measure recursive contracts' evaluation on the tests' values (probe.py)
    # recursive functions uninterpreted in the solver: set for the second try of a member whose solver
    # hung on their definitions (Z3 4.8.12 can ignore both its resource limit and interrupts there)
    opaque_recursion: bool = False
    # large inputs built from their witnesses solving only what the requires read, from the start: set for
    # the second try of a member whose first one ended in the probe of its inputs' reach (probing.py)
    requires_only_inputs: bool = False
    # a test only for literals shown to meet the requires and input types: set where those call a function
    # the solver left open, so the solved inputs may break them
    strict_admission: bool = False
    # lemmas Dafny takes on trust (no body, {:axiom}, an assume in the proof) are tested as properties: a
    # program verifies with one false, and a test is the only check it gets (bench leaves them out)
    trusted_lemmas: bool = True
    target: str = "py"  # the language the tests run in: externs with no code for it are not tested
    cache_dir: str | None = None  # reuse members' tests from here and keep new ones here (gencache.py)
    # ghost state Dafny can compile is compiled in the copy the tests build against (testbuild/), so clauses
    # over it are checked; off: the tests build against the program as written
    test_build: bool = True
