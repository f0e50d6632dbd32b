"""Placeholder: the nrg measures are declared here (see docs)."""
