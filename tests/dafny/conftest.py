import sys
from pathlib import Path

# the hand-built AST helpers and the golden-file helper live beside the partition tests
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "partition"))
