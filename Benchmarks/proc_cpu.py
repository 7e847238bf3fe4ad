"""CPU time of processes from /proc, for the benchmarks (serve_load.py, postgres_bench.py)."""
import os


def cpu_seconds_of(pid, reaped_children=False):
    """User + system CPU time of process `pid` in seconds (0.0 once it has ended); with `reaped_children`, that of the
    children it has waited for too (a postmaster's holds the backends of connections already closed)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime stime
        if reaped_children:
            ticks += int(fields[13]) + int(fields[14])  # cutime cstime
    except (OSError, ValueError, IndexError):
        return 0.0
    return ticks / os.sysconf("SC_CLK_TCK")
