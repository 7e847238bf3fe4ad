#!/usr/bin/env python3
"""Sign + journal + post per second on PostgreSQL with one, two and three host processes (issues 17 and 30), next to
pgbench's TPC-B-like rate through the same path in the same run, on loopback and through a proxy adding 1 ms each way
(Benchmarks/delay_proxy.c, compiled here: a round trip inside one data centre), and the SQLite figure.

Each host process is `rbs-bench signer` (release build): its own customer, one one-time code and one durable
transaction per payment (what `serve` does for one signing), all processes started at the same moment against one
database, reporting the statements (round trips) it sent per payment. The server is a throw-away cluster
(Tests/Postgres/cluster.sh) with the default durability (fsync on, synchronous_commit on), on this machine's loopback;
each path (direct, delayed) gets fresh databases for the hosts and its own pgbench database.

Usage: python3 Benchmarks/postgres_bench.py [--write BENCHMARKS.md] [--seconds 10] [--delay-ms 1]   (make bench-pg)
Writes its table between <!-- postgres:begin --> and <!-- postgres:end --> of BENCHMARKS.md (rbs-bench keeps it).
"""
import argparse
import datetime
import os
import re
import resource
import socket
import shutil
import subprocess
import sys
import tempfile
import time

from proc_cpu import cpu_seconds_of  # Benchmarks/, the script's own folder

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("RBS_BENCH_BUILD", os.path.join(ROOT, ".build-release", "release"))
CLUSTER = os.path.join(ROOT, "Tests", "Postgres", "cluster.sh")
PROXY_SOURCE = os.path.join(ROOT, "Benchmarks", "delay_proxy.c")
PROXY = None
# How many customers of one host sign at the same moment in the group-commit-across-requests rows (as many as the
# host keeps idle connections, so the baseline, each payment its own commit, never waits for a connection to open).
CUSTOMERS = 8
# The 1- and 3-host figures: the median of as many turns (measure_path). One turn's ratio of 3 hosts to 1 varied from
# 1.9 to 2.8 on this 2-core machine the same afternoon (2026-11-28), its own drift larger than the changes measured.
TURNS = 3
# psql as the cluster's superuser over its socket (main sets it): for quiesce's CHECKPOINT.
SUPERUSER = None


def run(command, **options):
    return subprocess.run(command, check=True, capture_output=True, text=True, **options)


def server_cpu_seconds():
    """User + system CPU of every PostgreSQL process now, with the children each has reaped (the postmaster's share holds
    the backends of connections already closed): the server's CPU, whatever its processes' owner."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as comm:
                if not comm.read().startswith("postgres"):
                    continue
        except OSError:
            continue  # a process that ended meanwhile
        total += cpu_seconds_of(entry, reaped_children=True)
    return total


def signers(count, database, seconds, group=None, cpu=None, customers=None, grouping=True, locked=False):
    """`count` signer processes started together: the sum of their rates, and their round trips per payment. With `cpu`
    (a dict), the CPU a payment took, in µs, is put there: the host processes' ("host", their whole lives, start-up
    included) and the server's ("server", while they ran)."""
    host_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = server_cpu_seconds()
    start_at = time.time() + 3
    extra = (["--group", str(group)] if group else []) + (["--customers", str(customers)] if customers else [])
    # RBS_POSTGRES_GROUP_COMMIT=0: the host commits each request's payment alone (the baseline of group commit across
    # requests, measured in the same run).
    # RBS_POSTGRES_LEDGER_LOCK=1: every commit one pass under the ledger's lock (v29's procedure), the baseline of the
    # commit without it (schema step v30), measured in the same run.
    environment = dict(os.environ, RBS_POSTGRES_GROUP_COMMIT="1" if grouping else "0",
                       RBS_POSTGRES_LEDGER_LOCK="1" if locked else "0")
    tag = ("g" if group else "") + (f"c{customers}{'' if grouping else 'n'}" if customers else "") + ("l" if locked else "")
    processes = [subprocess.Popen([os.path.join(BUILD, "rbs-bench"), "signer", "--database", database, "--customer",
                                   f"bench{count}x{index}{tag}", "--seconds", str(seconds),
                                   "--start-at", str(start_at)] + extra,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
                 for index in range(count)]
    total = 0.0
    trips = []
    payments = 0
    for process in processes:
        out, err = process.communicate(timeout=seconds + 120)
        found = re.search(r"ops (\d+) seconds ([\d.]+) roundtrips ([\d.]+)", out)
        if process.returncode != 0 or not found:
            sys.exit(f"rbs-bench signer failed ({process.returncode}): {out}{err}")
        total += int(found.group(1)) / float(found.group(2))
        trips.append(float(found.group(3)))
        payments += int(found.group(1))
    if cpu is not None and payments:
        time.sleep(0.3)  # the backends of the connections just closed, reaped by the postmaster
        host_after = resource.getrusage(resource.RUSAGE_CHILDREN)
        host = host_after.ru_utime + host_after.ru_stime - host_before.ru_utime - host_before.ru_stime
        cpu["host"] = host / payments * 1e6
        cpu["server"] = (server_cpu_seconds() - server_before) / payments * 1e6
    return total, sum(trips) / len(trips)


def pgbench(url, clients, seconds):
    out = run(["pgbench", "-n", "-T", str(seconds), "-c", str(clients), "-j", str(clients), url]).stdout
    return float(re.search(r"tps = ([\d.]+) \(without initial connection time\)", out).group(1))


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def proxy_binary():
    """Benchmarks/delay_proxy.c compiled (once a run) into a temporary folder: its path."""
    global PROXY
    if PROXY is None:
        compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
        if compiler is None:
            sys.exit("make bench-pg needs a C compiler (cc, gcc or clang) for Benchmarks/delay_proxy.c: none is on PATH")
        binary = os.path.join(tempfile.mkdtemp(prefix="rbs-delay-proxy-"), "delay_proxy")
        built = subprocess.run([compiler, "-O2", "-pthread", "-o", binary, PROXY_SOURCE], capture_output=True, text=True)
        if built.returncode != 0:
            sys.exit(f"Benchmarks/delay_proxy.c did not compile with {compiler}:\n{built.stderr}")
        PROXY = binary
    return PROXY


def start_proxy(server_port, delay_ms):
    """The delay proxy in front of the server: its process and port."""
    port = free_port()
    proxy = subprocess.Popen([proxy_binary(), "--listen", str(port), "--to", f"127.0.0.1:{server_port}",
                              "--delay-ms", str(delay_ms)], stdout=subprocess.PIPE, text=True)
    if proxy.stdout.readline().strip() != f"listening {port}":
        proxy.kill()
        sys.exit("the delay proxy did not start")
    return proxy, port


def quiesce():
    """Before each timed run: the work the runs before it left to the server done — dirty pages written (a
    CHECKPOINT, as the postgres superuser over the cluster's socket) and no autovacuum worker busy (up to 30 s) — so
    a figure does not pay for the one measured before it."""
    if SUPERUSER:
        run(SUPERUSER + ["-c", "CHECKPOINT"])
        for _ in range(300):
            busy = run(SUPERUSER + ["-At", "-c", "SELECT count(*) FROM pg_stat_activity "
                                               "WHERE backend_type = 'autovacuum worker'"]).stdout.strip()
            if busy == "0":
                break
            time.sleep(0.1)


def fresh_database(server, base, name):
    """A new database `name` with the bank's schema and the signer's set-up (`rbs-bench signer --init`): its URL."""
    run(["psql", server, "-X", "-q", "-c", f"CREATE DATABASE {name}"])
    database = f"{base}/{name}"
    run([os.path.join(BUILD, "rbs-bench"), "signer", "--init", "--database", database])
    return database


def drop_database(server, name):
    run(["psql", server, "-X", "-q", "-c", f"DROP DATABASE {name} WITH (FORCE)"])


def measure_path(tag, server, port, options):
    """One path to the server (the server's own port, or the proxy's): 1, 2 and 3 hosts, group commit, pgbench.

    The 1- and 3-host figures, which issue 30's ratios compare, are each the median of TURNS turns, taken in turn
    (1, 3, 1, 3, …) so that a slow spell of the machine falls on both; every run on a fresh database of its own,
    dropped after it, with the server quiesced before it."""
    direct = server.rsplit("/", 1)[0]
    base = re.sub(r":\d+$", f":{port}", direct)
    figures = {"hosts": {}, "trips": {}, "pgbench": {}, "cpu": {}, "turns": {1: [], 2: [], 3: []}}

    def measured(name, count, **arguments):
        database = fresh_database(server, base, name)
        quiesce()
        result = signers(count, database, options.seconds, **arguments)
        drop_database(server, name)
        return result

    for turn in range(TURNS):
        for count in ((1, 2, 3) if turn == 0 else (1, 3)):
            cpu = {}
            rate, trips = measured(f"rbs_bench_{tag}_{count}_{turn}", count, cpu=cpu)
            figures["turns"][count].append((rate, trips, cpu))
            print(f"{tag}: PostgreSQL, {count} host process(es), turn {turn + 1}: {rate:.0f} signed payments/s, "
                  f"{trips:.2f} round trips a payment, CPU a payment: host {cpu.get('host', 0):.0f} µs, "
                  f"server {cpu.get('server', 0):.0f} µs", flush=True)
    for count, turns in figures["turns"].items():
        # The median turn's figures (its rate, round trips and CPU together).
        rate, trips, cpu = sorted(turns, key=lambda t: t[0])[len(turns) // 2]
        figures["hosts"][count], figures["trips"][count], figures["cpu"][count] = rate, trips, cpu
    # The same three hosts, each commit one pass under the ledger's lock (v29's way), on a fresh database.
    figures["locked"], figures["locked_trips"] = measured(f"rbs_bench_{tag}_locked", 3, locked=True)
    print(f"{tag}: PostgreSQL, 3 host processes, each commit under the ledger's lock (v29): "
          f"{figures['locked']:.0f} signed payments/s", flush=True)
    figures["group"], figures["group_trips"] = measured(f"rbs_bench_{tag}_group", 1, group=100)
    print(f"{tag}: PostgreSQL, 1 host process, group commit of 100: {figures['group']:.0f} signed payments/s", flush=True)
    # Group commit across requests: one host, CUSTOMERS customers signing at the same moment round after round, with
    # the host's grouping and without it (each request's payment its own commit), in turns on fresh databases.
    figures["customers"], figures["customers_trips"] = {}, {}
    for grouping in (True, False):
        figures["customers"][grouping], figures["customers_trips"][grouping] = measured(
            f"rbs_bench_{tag}_customers_{'grouped' if grouping else 'alone'}", 1, customers=CUSTOMERS, grouping=grouping)
        print(f"{tag}: PostgreSQL, 1 host process, {CUSTOMERS} customers at once, "
              f"{'grouped' if grouping else 'each alone'}: {figures['customers'][grouping]:.0f} signed payments/s, "
              f"{figures['customers_trips'][grouping]:.2f} round trips a payment", flush=True)
    run(["psql", server, "-X", "-q", "-c", f"CREATE DATABASE pgbench_{tag}"])
    run(["pgbench", "-i", "-s", "10", "-q", f"{direct}/pgbench_{tag}"])
    for count in (1, 2, 3):
        quiesce()
        figures["pgbench"][count] = pgbench(f"{base}/pgbench_{tag}", count, options.seconds)
        print(f"{tag}: pgbench TPC-B-like, {count} client(s): {figures['pgbench'][count]:.0f} tps", flush=True)
    drop_database(server, f"pgbench_{tag}")
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", help="the BENCHMARKS.md to put the figures in")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--delay-ms", type=float, default=1.0, help="the proxy's one-way delay")
    options = parser.parse_args()
    for tool in ["rbs-bench"]:
        if not os.path.exists(os.path.join(BUILD, tool)):
            sys.exit(f"{BUILD}/{tool} is missing: make bench-pg builds it")
    if not shutil.which("pgbench"):
        sys.exit("pgbench is missing: apt-get install -y postgresql-contrib (or postgresql)")
    # The cluster's own folder (cluster.sh hands it to the postgres user; its parent must be /tmp, which anyone enters).
    folder = tempfile.mkdtemp(prefix="rbs-pg-bench-")
    load_start = open("/proc/loadavg").read().split()[:3]
    proxy = None
    try:
        server = run([CLUSTER, "start", folder]).stdout.strip().splitlines()[-1]
        server_port = int(re.search(r":(\d+)/", server).group(1))
        global SUPERUSER
        SUPERUSER = ["psql", "-h", folder, "-p", str(server_port), "-U", "postgres", "-d", "postgres", "-X", "-q"]
        loopback = measure_path("loopback", server, server_port, options)
        proxy, proxy_port = start_proxy(server_port, options.delay_ms)
        delayed = measure_path("delayed", server, proxy_port, options)
        sqlite, _ = signers(1, "sqlite", options.seconds)
        print(f"SQLite (data folder), 1 host process: {sqlite:.0f} signed payments/s")
        load_end = open("/proc/loadavg").read().split()[:3]
    finally:
        if proxy:
            proxy.kill()
        subprocess.run([CLUSTER, "stop", folder], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)

    delay = options.delay_ms
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    table = [
        "<!-- postgres:begin -->",
        "## Several hosts on PostgreSQL (issues 17 and 30)",
        "",
        f"Measured by `make bench-pg` (Benchmarks/postgres_bench.py, {'release' if 'release' in BUILD else 'DEBUG'} "
        f"build) on {os.cpu_count()} cores, {when}; load average at the start {' '.join(load_start)}, at the end "
        f"{' '.join(load_end)}. A throw-away PostgreSQL 15 cluster with the default durability (fsync and "
        f"synchronous_commit on), reached two ways in the same run: on loopback, and through Benchmarks/delay_proxy.c "
        f"adding {delay:g} ms each way (a {2 * delay:g} ms round trip, as inside one data centre; the proxy, in C, one "
        f"thread a connection polling both sides, two wake-ups a chunk, on the same 2 cores). Each host process is `rbs-bench signer`: its own customer, one one-time code "
        f"check, Ed25519 signature, journal entry, posting and durable commit per payment (the payment drafted "
        f"once, each signing a copy of it at a new time with a new nonce, as a form is drafted at review, not at "
        f"signing), through PostgreSQL's one-call writes: when the last commit answered the payment's queries after "
        f"its writes (schema step v22-answers-after-commit; since v24-answers-as-rows each query's rows in their JSON text), one round trip checks those answers are still the rows "
        f"and writes — since v30-sequenced-apart in a SERIALIZABLE transaction without the ledger's lock, the entry "
        f"given an id from a sequence and its chain position at integration, after the commit — and, since "
        f"v25-flush-outside-lock, not across the WAL's flush (the payment is answered after a second commit has "
        f"flushed past it); otherwise (a row another host changed, a "
        f"first payment) one round trip reads what the payment's rules need and one more checks and writes. All "
        f"processes start together, "
        f"{options.seconds} s each, on a fresh database for every run, dropped after it, the server quiesced before "
        f"it (a CHECKPOINT, no autovacuum worker busy); the 1- and 3-host figures are each the median of {TURNS} "
        f"turns taken alternately (1, 3, 1, 3, …), every turn listed, the CPU figures the median turn's. pgbench's built-in TPC-B-like script (`pgbench -i -s 10`, "
        f"then `-T {options.seconds} -c N -j N`) runs through the same path: seven statements a transaction, each a "
        f"round trip (BEGIN, three UPDATEs, a SELECT, an INSERT, END), row locks only.",
        "",
        "| path | measure | value | pgbench through the same path | ratio | bounded by |",
        "|---|---|---|---|---|---|",
    ]
    for label, figures, rtt in (("loopback", loopback, None), (f"+{delay:g} ms each way", delayed, 2 * delay)):
        for count in (1, 2, 3):
            rate, trips, base = figures["hosts"][count], figures["trips"][count], figures["pgbench"][count]
            if rtt:
                per_host = 1000 / (trips * rtt)
                bound = (f"{trips:.2f} round trips a payment × {rtt:g} ms = {trips * rtt:.1f} ms of waiting: at most "
                         f"{per_host:.0f}/s a host, {count} × that for {count}")
            else:
                bound = (f"{trips:.2f} round trips a payment, each a hand-off to the server process and back on the "
                         f"shared cores; the server's work a payment (the commit checks each query's digest, writes, "
                         f"answers the queries again, then commits once more to flush the WAL) and the host's (the "
                         f"speculative body, the statements written out, the signature)")
            cpu = figures["cpu"].get(count, {})
            if cpu.get("host") and cpu.get("server"):
                most = (os.cpu_count() or 1) / (cpu["host"] + cpu["server"]) * 1e6
                bound += (f"; CPU a payment (from /proc while they ran): the host's {cpu['host']:.0f} µs (start-up included), "
                          f"the server's {cpu['server']:.0f} µs, so {os.cpu_count()} cores carry at most {most:.0f} payments/s "
                          f"({rate / most:.2f} of that here)")
            if count > 1:
                bound += ("; no ledger-wide lock (schema step v30): each commit's checks and writes run SERIALIZABLE "
                          "on the rows they touch, entries take ids from a sequence and their chain positions at "
                          "integration, after the commit; the hosts' sum is bounded by 2 cores shared by the hosts, "
                          "the server" + (" and the proxy" if rtt else ""))
            turns = [t[0] for t in figures["turns"][count]]
            value = f"{rate:.0f} ops/s" + (f" (median of {len(turns)} turns: {', '.join(f'{t:.0f}' for t in turns)})"
                                           if len(turns) > 1 else "")
            table.append(f"| {label} | {count} host{'s' if count > 1 else ''} (one code, one transaction each) | "
                         f"{value} | {count} client{'s' if count > 1 else ''}: {base:.0f} tps | "
                         f"{rate / base:.2f}× | {bound} |")
        locked = figures["locked"]
        table.append(f"| {label} | 3 hosts, each commit one pass under the ledger's lock (v29's procedure, "
                     f"RBS_POSTGRES_LEDGER_LOCK=1) | {locked:.0f} ops/s | without the lock: {figures['hosts'][3]:.0f} ops/s | "
                     f"{figures['hosts'][3] / locked:.2f}× without ÷ with | {figures['locked_trips']:.2f} round trips a "
                     f"payment; the checks, writes and numbers of every host's commit one at a time inside the server |")
        table.append(f"| {label} | 1 host, group commit (batches of 100: one code, signed in parallel, one commit) | "
                     f"{figures['group']:.0f} ops/s | 1 client: {figures['pgbench'][1]:.0f} tps | "
                     f"{figures['group'] / figures['pgbench'][1]:.2f}× | {figures['group_trips'] * 100:.1f} round trips "
                     f"a batch; the signing and the speculative body of 100 documents on the cores the server shares |")
        grouped, alone = figures["customers"][True], figures["customers"][False]
        table.append(f"| {label} | 1 host, {CUSTOMERS} customers signing at the same moment, round after round, "
                     f"each request's payment committed alone (RBS_POSTGRES_GROUP_COMMIT=0) | {alone:.0f} ops/s | "
                     f"1 client: {figures['pgbench'][1]:.0f} tps | {alone / figures['pgbench'][1]:.2f}× | "
                     f"{figures['customers_trips'][False]:.2f} round trips a payment, one commit each, "
                     f"{CUSTOMERS} at once on as many connections |")
        table.append(f"| {label} | the same, group commit across requests (the payments arriving while one commits "
                     f"go together: one round trip, one commit) | {grouped:.0f} ops/s | "
                     f"alone: {alone:.0f} ops/s | {grouped / alone:.2f}× | {figures['customers_trips'][True]:.2f} round "
                     f"trips a payment; every body of a group run by the thread that commits it, checked as one in "
                     f"the commit's serializable transaction |")
        for count in (1, 2, 3):
            base = figures["pgbench"][count]
            if rtt:
                bound = f"7 round trips × {rtt:g} ms = {7 * rtt:g} ms a transaction: at most {1000 / (7 * rtt):.0f} tps a client"
            else:
                bound = "7 round trips and one fsync a transaction, row locks only; the clients share 2 cores with the server"
            table.append(f"| {label} | pgbench TPC-B-like, {count} client{'s' if count > 1 else ''} | {base:.0f} tps | "
                         f"| | {bound} |")
    table.append(f"| loopback | SQLite (data folder), 1 host process (one code, one transaction each) | {sqlite:.0f} ops/s "
                 f"| | | SQLite's one writer in the same process: a WAL append and fsync per payment |")
    table += ["", "Issue 30's targets, from the figures above:", "",
              "| target | measured | met |", "|---|---|---|"]

    def target(name, value, goal):
        table.append(f"| {name} ≥ {goal:g} | {value:.2f} | {'yes' if value >= goal else '**no**'} |")

    target(f"+{delay:g} ms: 3 hosts ÷ 1 host", delayed["hosts"][3] / delayed["hosts"][1], 2.5)
    target(f"+{delay:g} ms: 1 host ÷ pgbench 1 client", delayed["hosts"][1] / delayed["pgbench"][1], 2.0)
    target("loopback: 3 hosts ÷ 1 host", loopback["hosts"][3] / loopback["hosts"][1], 1.5)
    target("loopback: 1 host ÷ pgbench 1 client", loopback["hosts"][1] / loopback["pgbench"][1], 0.5)
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
