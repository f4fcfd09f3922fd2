"""dspec2test: specification-driven test generation for Dafny."""

__version__ = "0.1.0"
