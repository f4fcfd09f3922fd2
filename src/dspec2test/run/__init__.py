"""run stage."""
