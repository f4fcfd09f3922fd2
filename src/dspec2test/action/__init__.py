"""action stage."""
