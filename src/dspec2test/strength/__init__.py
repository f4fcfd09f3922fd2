"""Contract strength (issue 30): which contracts accept a changed implementation.

mutate.py makes mutants of a member's code on the AST; copies.py puts them beside the member as renamed
copies; verifier.py keeps those Dafny still verifies; differ.py runs them beside the member on the spec
tests' inputs; engine.py does this for one member within a budget; program.py for the members of a file.
"""
