"""The search beside the solver: candidate inputs (small scope, biased random, neighbours of models), admitted
and sorted into partitions by the contract compiled to Python (harness.py, compiled.py, worker.py), chosen for
their variety (select.py), and shrunk after a failure (shrink.py)."""
