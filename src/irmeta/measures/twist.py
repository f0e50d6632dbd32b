"""Placeholder: the twist measures are declared here (see docs)."""
