"""partition stage."""
