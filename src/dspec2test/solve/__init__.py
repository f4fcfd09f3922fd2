"""solve stage."""
