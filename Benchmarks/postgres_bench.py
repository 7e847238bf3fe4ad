#!/usr/bin/env python3
"""Sign + journal + post per second on PostgreSQL with one, two and three host processes (issue 17), next to pgbench's
TPC-B-like rate against the same server in the same run (the database's own ceiling here) and the SQLite figure.

Each host process is `rbs-bench signer` (release build): its own customer, one one-time code and one durable
transaction per payment (what `serve` does for one signing), all processes started at the same moment against one
database. The server is a throw-away cluster (Tests/Postgres/cluster.sh) with the default durability (fsync on,
synchronous_commit on), on this machine's loopback.

Usage: python3 Benchmarks/postgres_bench.py [--write BENCHMARKS.md] [--seconds 10]   (make bench-pg)
Writes its table between <!-- postgres:begin --> and <!-- postgres:end --> of BENCHMARKS.md (rbs-bench keeps it).
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("RBS_BENCH_BUILD", os.path.join(ROOT, ".build-release", "release"))
CLUSTER = os.path.join(ROOT, "Tests", "Postgres", "cluster.sh")


def run(command, **options):
    return subprocess.run(command, check=True, capture_output=True, text=True, **options)


def signers(count, database, seconds, group=None):
    """`count` signer processes started together; the sum of their rates."""
    start_at = time.time() + 3
    extra = ["--group", str(group)] if group else []
    processes = [subprocess.Popen([os.path.join(BUILD, "rbs-bench"), "signer", "--database", database, "--customer",
                                   f"bench{count}x{index}{'g' if group else ''}", "--seconds", str(seconds),
                                   "--start-at", str(start_at)] + extra,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for index in range(count)]
    total = 0.0
    for process in processes:
        out, err = process.communicate(timeout=seconds + 120)
        found = re.search(r"ops (\d+) seconds ([\d.]+)", out)
        if process.returncode != 0 or not found:
            sys.exit(f"rbs-bench signer failed ({process.returncode}): {out}{err}")
        total += int(found.group(1)) / float(found.group(2))
    return total


def pgbench(url, clients, seconds):
    out = run(["pgbench", "-n", "-T", str(seconds), "-c", str(clients), "-j", str(clients), url]).stdout
    return float(re.search(r"tps = ([\d.]+) \(without initial connection time\)", out).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", help="the BENCHMARKS.md to put the figures in")
    parser.add_argument("--seconds", type=int, default=10)
    options = parser.parse_args()
    for tool in ["rbs-bench"]:
        if not os.path.exists(os.path.join(BUILD, tool)):
            sys.exit(f"{BUILD}/{tool} is missing: make bench-pg builds it")
    if not shutil.which("pgbench"):
        sys.exit("pgbench is missing: apt-get install -y postgresql-contrib (or postgresql)")
    # The cluster's own folder (cluster.sh hands it to the postgres user; its parent must be /tmp, which anyone enters).
    folder = tempfile.mkdtemp(prefix="rbs-pg-bench-")
    load_start = open("/proc/loadavg").read().split()[:3]
    rows = []
    try:
        server = run([CLUSTER, "start", folder]).stdout.strip().splitlines()[-1]
        base = server.rsplit("/", 1)[0]
        env = dict(os.environ)
        # The ledger: one database per process count, created as a first host's `rbs-host init` would.
        rates = {}
        for count in (1, 2, 3):
            name = f"rbs_bench_{count}"
            run(["psql", server, "-X", "-q", "-c", f"CREATE DATABASE {name}"])
            database = f"{base}/{name}"
            run([os.path.join(BUILD, "rbs-bench"), "signer", "--init", "--database", database], env=env)
            rates[count] = signers(count, database, options.seconds)
            print(f"PostgreSQL, {count} host process(es): {rates[count]:.0f} signed payments/s")
        group = signers(1, f"{base}/rbs_bench_1", options.seconds, group=100)
        print(f"PostgreSQL, 1 host process, group commit of 100: {group:.0f} signed payments/s")
        run(["psql", server, "-X", "-q", "-c", "CREATE DATABASE pgbench"])
        pgbench_url = f"{base}/pgbench"
        run(["pgbench", "-i", "-s", "10", "-q", pgbench_url])
        ceilings = {count: pgbench(pgbench_url, count, options.seconds) for count in (1, 2, 3)}
        for count, tps in ceilings.items():
            print(f"pgbench TPC-B-like, {count} client(s): {tps:.0f} tps")
        sqlite = signers(1, "sqlite", options.seconds)
        print(f"SQLite (data folder), 1 host process: {sqlite:.0f} signed payments/s")
        load_end = open("/proc/loadavg").read().split()[:3]
        for count in (1, 2, 3):
            rows.append((f"sign + journal + post on PostgreSQL, {count} host process{'es' if count > 1 else ''} "
                         f"(one code, one transaction each)", rates[count], f"pgbench TPC-B-like, {count} client"
                         f"{'s' if count > 1 else ''}", ceilings[count]))
        rows.append(("sign + journal + post on PostgreSQL, 1 host process, group commit (batches of 100: one code, "
                     "signed in parallel, one transaction)", group, "pgbench TPC-B-like, 1 client", ceilings[1]))
        rows.append(("sign + journal + post on SQLite (data folder), 1 host process (one code, one transaction each)",
                     sqlite, "PostgreSQL, 1 host process (above)", rates[1]))
    finally:
        subprocess.run([CLUSTER, "stop", folder], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)

    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    table = [
        "<!-- postgres:begin -->",
        "## Several hosts on PostgreSQL (issue 17)",
        "",
        f"Measured by `make bench-pg` (Benchmarks/postgres_bench.py, {'release' if 'release' in BUILD else 'DEBUG'} "
        f"build) on {os.cpu_count()} cores, {when}; "
        f"load average at the start {' '.join(load_start)}, at the end {' '.join(load_end)}. A throw-away PostgreSQL 15 "
        f"cluster on loopback with the default durability (fsync and synchronous_commit on); each host process is "
        f"`rbs-bench signer`: its own customer, one one-time code check, Ed25519 signature, journal entry, posting and "
        f"durable COMMIT per payment, every write transaction behind the ledger's advisory lock; all processes start "
        f"together, {options.seconds} s each. pgbench's built-in TPC-B-like script (`pgbench -i -s 10`, then "
        f"`-T {options.seconds} -c N -j N`) runs against the same server in the same run: five statements and one "
        f"durable COMMIT per transaction, row locks only, so N clients commit in parallel.",
        "",
        "| measure | value | baseline (same run) | ratio | bounded by |",
        "|---|---|---|---|---|",
    ]
    bounds = [
        "16 statements a payment, each a round trip (BEGIN, the ledger's lock, the code state, the document id, the key, "
        "both accounts, journal entry, posting, balance, the tip, COMMIT): each waits for the server process and two "
        "thread hand-offs to be scheduled on the shared cores; plus one WAL fsync at COMMIT",
        "the ledger's advisory lock: payments from all hosts commit one at a time (the hash chain is one sequence), so a "
        "second host adds no commits; the lock's holder waits on 16 round trips, and with more runnable processes than "
        "cores it is descheduled while it holds the lock, so the serial section stretches and the sum falls",
        "as with two, more so: three hosts, their server backends and the rest of the machine's load on 2 cores, while "
        "one transaction at a time may run",
        "the batch's statements (≈ 12 round trips a document inside one transaction) and the signing, which 2 cores "
        "share with the server; one fsync per 100 documents",
        "SQLite's one writer in the same process: a WAL append and fsync per payment, no network round trips",
    ]
    for (name, value, baseline_name, baseline), bound in zip(rows, bounds):
        ratio = f"{value / baseline:.2f}×" if baseline else "—"
        table.append(f"| {name} | {value:.0f} ops/s | {baseline_name}: {baseline:.0f} {'ops/s' if 'PostgreSQL' in baseline_name else 'tps'} "
                     f"| {ratio} | {bound} |")
    table.append("<!-- postgres:end -->")
    text = "\n".join(table)
    print(text)
    if options.write:
        previous = open(options.write).read() if os.path.exists(options.write) else ""
        begin, end = previous.find("<!-- postgres:begin -->"), previous.find("<!-- postgres:end -->")
        if begin >= 0 and end > begin:
            updated = previous[:begin] + text + previous[end + len("<!-- postgres:end -->"):]
        else:
            updated = previous.rstrip("\n") + "\n\n" + text + "\n"
        with open(options.write, "w") as out:
            out.write(updated)
        print(f"written to {options.write}")


if __name__ == "__main__":
    main()
