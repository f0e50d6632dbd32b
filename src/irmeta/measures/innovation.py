"""Placeholder: the innovation measures are declared here (see docs)."""
