"""Plots (matplotlib, imported only when drawing). One module per figure kind."""
