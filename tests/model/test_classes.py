"""The class index (model/classes.py): a trait's parents are resolved from the module that declares it, so a
chain of traits of one short name across modules (`Interface.Trait` extends `A.Interface.Trait`) reaches
the class at its end, and a trait of that name elsewhere is not taken for one of them."""

from pathlib import Path

from dspec2test.dafny.parser import parse_file
from dspec2test.model.classes import ClassIndex

FIXTURE = Path(__file__).parent.parent / "fixtures" / "model" / "trait_chain.dfy"


def index() -> ClassIndex:
    return ClassIndex.of(parse_file(str(FIXTURE)))


def test_a_chain_of_traits_named_alike_resolves_module_by_module():
    idx = index()
    impl = idx.decls["C.Impl"]
    assert [idx.qualified(t) for t in idx.supers(impl)] == [
        "B.Implementation.Trait", "B.Interface.Trait", "A.Interface.Trait"]


def test_the_class_at_the_end_of_the_chain_implements_the_first_trait_and_not_a_namesake():
    idx = index()
    assert [idx.qualified(c) for c in idx.implementations(idx.decls["A.Interface.Trait"])] == ["C.Impl"]
    assert idx.implementations(idx.decls["Decoy.Trait"]) == ()
