"""What the benchmark scripts record about the machine they ran on."""

from __future__ import annotations


def cpu_ticks() -> tuple[int, int] | None:
    """(steal, total) jiffies of all CPUs from /proc/stat (Linux), None elsewhere: on a
    shared virtual machine, the share of time the host gave to other guests."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    return (fields[7] if len(fields) > 7 else 0), sum(fields)


def steal_share(before, after) -> str:
    if before is None or after is None or after[1] <= before[1]:
        return "n/a"
    return f"{100 * (after[0] - before[0]) / (after[1] - before[1]):.0f}%"


def best(fn, repeat: int) -> float:
    """The shortest wall time of ``repeat`` calls of ``fn()`` (seconds): on a shared
    machine the minimum is the least disturbed measurement."""
    import time
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)
