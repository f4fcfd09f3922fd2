"""Generation of one run: its options, the per-member algorithm (member.py), the rounds over the members
(rounds.py) and the manifest (manifest.py). generate.py wires them."""
