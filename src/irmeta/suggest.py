"""The "did you mean" of error messages: the closest candidates to a misspelt name.

One helper for every message that names something unknown (a measure, a measure's
parameter, a report section, a ``--format`` value, an ``irds:`` dataset id; click itself
suggests for subcommands and options). It is imported only when an error is being
raised, so the success path never pays for it (``difflib`` and this module stay out of a
successful command; ``tests/unit/test_friction.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

#: a list of at most this many candidates is shown whole after the suggestions
SHORT = 12


def close_matches(word: str, candidates: Iterable[str], n: int = 3,
                  cutoff: float = 0.6) -> list[str]:
    """The candidates closest to ``word``, best first (``difflib.get_close_matches``,
    ignoring case: ``ndgc`` finds ``nDCG``); a candidate equal to ``word`` but for case
    comes first."""
    from difflib import get_close_matches
    folded: dict[str, str] = {}
    for c in candidates:
        folded.setdefault(str(c).lower(), str(c))
    key = str(word).lower()
    if key in folded:
        return [folded[key]]
    return [folded[m] for m in get_close_matches(key, list(folded), n=n, cutoff=cutoff)]


def did_you_mean(word: str, candidates: Iterable[str], *, noun: str = "known",
                 elsewhere: str = "", short: int = SHORT) -> str:
    """The hint after "unknown ``word``": ``did you mean 'x'?`` (or ``one of 'x', 'y'``)
    when some candidate is close, then the whole list (``noun: a, b, c``) when it has at
    most ``short`` items; for a longer list with nothing close, ``elsewhere`` (where the
    list is, e.g. "every measure: `irmeta measures`"). "" when there is nothing to say."""
    items = list(dict.fromkeys(str(c) for c in candidates))
    close = close_matches(word, items)
    parts = []
    if len(close) == 1:
        parts.append(f"did you mean {close[0]!r}?")
    elif close:
        parts.append("did you mean one of " + ", ".join(map(repr, close)) + "?")
    if items and len(items) <= short:
        listing = f"{noun}: {', '.join(items)}"
        parts.append(f"({listing})" if close else listing)
    elif not close and elsewhere:
        parts.append(elsewhere)
    return " ".join(parts)


def unknown(what: str, word: str, candidates: Iterable[str], *, noun: str = "known",
            elsewhere: str = "", short: int = SHORT, like: str | None = None) -> str:
    """``unknown <what> 'word'; did you mean 'x'? (...)``: the whole message (``like``:
    the part of ``word`` to match, when it is not all of it)."""
    hint = did_you_mean(word if like is None else like, candidates, noun=noun,
                        elsewhere=elsewhere, short=short)
    return f"unknown {what} {word!r}" + (f"; {hint}" if hint else "")
