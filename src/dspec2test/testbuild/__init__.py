"""testbuild: the copy of the program the tests compile against, in which ghost state runs.

`lift(loaded, target, cache_dir)` gives the `TestBuild` of a program version (Dafny asked once, then
cached by content): its files, the names it `lifted` into compiled code, and those `kept` ghost with
Dafny's reason. `lifted_view` marks the lifted declarations in the AST the generation reads;
`TestBuild.place` writes the copy where a run builds it; `lifted_text` lifts the same declarations in
another version of a file (a mutant)."""

from dspec2test.testbuild.build import lift
from dspec2test.testbuild.record import BuildFile, Kept, PlacedBuild, TestBuild
from dspec2test.testbuild.version import lifted_text
from dspec2test.testbuild.view import lifted_view

__all__ = ["BuildFile", "Kept", "PlacedBuild", "TestBuild", "lift", "lifted_text", "lifted_view"]
