#!/usr/bin/env python3
"""rbs-host serve under load, next to a ceiling measured in the same process and run (issue 16).

  - commits/s and p50/p99 latency at 64 connections (wrk, loopback): PUT /api/v1/runs/{run}/atoms/amount on 64 open
    quick payments, next to GET /hello (a constant answer, `serve --hello-route`) on the same server;
  - the same commits while another plugin takes 3 s per call (the fault corpus's plugin built to sleep in
    value_changed, under the 5 s deadline, kept busy by 8 clients): the commits' p99 next to the run without it;
  - context switches per commit of the server process (/proc/PID/status and each thread's, before and after the
    commit load; grouped by thread name, so the table says where they come from), next to /hello's per request;
  - the server's CPU time (its own and its plugin workers') per commit, next to /hello's per request: on a shared
    machine the figure the load changes least;
  - these in rounds (--rounds, default 3): each round measures /hello, then the commits, then the commits beside the
    slow plugin, so every figure has its baseline from minutes, not seconds, apart; the rounds' medians are reported;
  - resident memory of the server holding 10,000 open runs (the example plugins loaded);
  - sign + post through the API: many customers each submitting and signing one payment with their current code
    (a code is accepted once per customer, so the rate needs many customers), next to rbs-bench's embedded figure.

Usage: python3 Benchmarks/serve_load.py [--write BENCHMARKS.md] [--seconds 10]
Needs wrk (Debian) and the release build (make bench-serve builds it). Writes the figures between the markers
<!-- serve:begin --> and <!-- serve:end --> of BENCHMARKS.md (rbs-bench keeps that part when it rewrites the file).
"""
import argparse
import concurrent.futures
import datetime
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "ServerWeb"))
from served import totp  # noqa: E402
from proc_cpu import cpu_seconds_of  # noqa: E402  (Benchmarks/, the script's own folder)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = os.environ.get("RBS_HOST_BINARY", os.path.join(ROOT, ".build-release", "release", "rbs-host"))
PLUGINS = os.path.join(ROOT, "Plugins")


class Client:
    def __init__(self, port, token=None):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.token = token

    def call(self, method, path, body=None):
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        self.connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        answer = self.connection.getresponse()
        data = answer.read()
        return answer.status, (json.loads(data) if data else None)


def add_customer(data, name, password):
    added = subprocess.run([HOST, "customers", "add", name, "--password-stdin", "--data", data],
                           input=password + "\n", capture_output=True, text=True, check=True)
    return re.search(r"secret=([A-Z2-7]+)", added.stdout).group(1), re.findall(r"\b(408\d{17})\b", added.stdout)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def wrk(url, seconds, script=None):
    command = ["wrk", "-t2", "-c64", f"-d{seconds}s", "--latency"] + (["-s", script] if script else []) + [url]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    wrk.requests = int(re.search(r"(\d+) requests in", out).group(1))

    def latency(percent):
        value, unit = re.search(rf"\s{percent}%\s+([\d.]+)(us|ms|s)\b", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rate, latency(50), latency(99), int(errors.group(1)) if errors else 0


# What each thread group of the server is (Linux keeps 15 characters of a thread's name: libdispatch names its
# threads after the end of the root queue's label).
THREADS = {
    "r-initiated-qos": "request handlers (Swift concurrency's pool: dispatch's user-initiated root queue)",
    "-qos.overcommit": "plugin lanes (serial dispatch queues: a worker's request and its reply)",
    "oot.default-qos": "blocking ledger work off the handlers (OnlineBank.blocking: DispatchQueue.global)",
    "NIO-SGLTN-N-#N": "NIO event loops (the sockets)",
    "plugin workers": "plugin worker processes",
}


def loadavg():
    """The load average (1/5/15 min) as `uptime` shows it."""
    with open("/proc/loadavg") as load:
        return " ".join(load.read().split()[:3])


def cpu_seconds(pid):
    """User + system CPU time of `pid` and of its children alive now (the plugin workers), in seconds."""
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return cpu_seconds_of(pid) + sum(cpu_seconds_of(child) for child in children)


def switches(pid):
    """Context switches (voluntary + involuntary) of each thread of `pid` by thread name, and of its children (the
    plugin workers) under "plugin workers"."""
    counts = {}

    def read(path):
        with open(path) as status:
            fields = dict(line.split(":", 1) for line in status if ":" in line)
        return int(fields["voluntary_ctxt_switches"]) + int(fields["nonvoluntary_ctxt_switches"])
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as comm:
                name = re.sub(r"\d+", "N", comm.read().strip())
            counts[name] = counts.get(name, 0) + read(f"/proc/{pid}/task/{task}/status")
        except OSError:
            pass  # the thread ended meanwhile
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    for child in children:
        try:
            for task in os.listdir(f"/proc/{child}/task"):
                counts["plugin workers"] = counts.get("plugin workers", 0) + read(f"/proc/{child}/task/{task}/status")
        except OSError:
            pass
    return counts


def switches_between(before, after):
    """Per thread group, the switches made between two `switches` readings (threads that ended are not counted)."""
    return {name: after[name] - before.get(name, 0) for name in after if after[name] - before.get(name, 0) > 0}


def slow_plugin(folder):
    """The fault corpus's plugin built to take 3 s in every value_changed (FAULT 18 at WHERE 2), as test.slow."""
    include = os.path.join(ROOT, "SDK", "Sources", "CRBSPlugin", "include")
    subprocess.run(["cc", "-std=c11", "-shared", "-fPIC", "-I", include, "-DPLUGIN_ID=\"test.slow\"",
                    "-DOPERATION_ID=\"slow.op\"", "-DFAULT=18", "-DWHERE=2", "-DSLEEP_MS=3000",
                    "-o", os.path.join(folder, "slow.so"), os.path.join(ROOT, "Tests", "Fixtures", "faults", "fault.c")],
                   check=True)


def quick_values(account):
    return [("srcAccount", account), ("destName", "ООО Ромашка"), ("destInn", "1234567894"),
            ("destAccount", "40702810638000000123"), ("destBic", "044525225"), ("destDesc", "оплата"), ("amount", "10")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", help="the BENCHMARKS.md to put the figures in")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of /hello, commits, commits beside the slow plugin")
    parser.add_argument("--signers", type=int, default=200)
    parser.add_argument("--note", default="", help="a note on the run (how quiet the machine was)")
    options = parser.parse_args()
    for tool in ["wrk"]:
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing: apt-get install -y {tool}")
    if not os.path.exists(HOST):
        sys.exit(f"{HOST} is missing: swift build -c release --scratch-path .build-release --product rbs-host")

    data = tempfile.mkdtemp(prefix="rbs-serve-bench-")
    os.chmod(data, 0o700)
    # The example plugins and the slow one, side by side (--dev: the slow one is not signed).
    plugins = os.path.join(data, "plugins")
    os.mkdir(plugins, 0o700)
    for name in os.listdir(PLUGINS):
        if name.endswith(".so") or name.endswith(".so.sig"):
            shutil.copy(os.path.join(PLUGINS, name), plugins)
    slow_plugin(plugins)
    secret, accounts = add_customer(data, "bench", "bench-password")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(os.path.join(data, "requests.log"), "w")
    server = subprocess.Popen([HOST, "serve", "--dev", "--hello-route", "--runs-per-customer", "20000", "--data", data, "--plugins", plugins,
                               "--listen", f"127.0.0.1:{port}"], stdout=log, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                if Client(port).call("GET", "/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        client = Client(port)
        status, login = client.call("POST", "/api/v1/session", {"customer": "bench", "password": "bench-password"})
        client.token = login["token"]
        base_rss = rss_mb(server.pid)

        # Commits: 64 open quick payments, each connection commits to one of them.
        runs = [client.call("POST", "/api/v1/runs", {"operation": "pay.pp.quick"})[1]["id"] for _ in range(64)]
        script = os.path.join(data, "commit.lua")
        with open(script, "w") as lua:
            lua.write('local runs = {%s}\nlocal n = 0\n' % ",".join(f'"{r}"' for r in runs))
            lua.write('wrk.method = "PUT"\nwrk.headers["Content-Type"] = "application/json"\n')
            lua.write(f'wrk.headers["Authorization"] = "Bearer {client.token}"\n')
            lua.write('request = function()\n  n = n + 1\n  local value = (n % 2 == 0) and "100" or "200.50"\n'
                      '  return wrk.format(nil, "/api/v1/runs/" .. runs[(n % #runs) + 1] .. "/atoms/amount", nil,'
                      ' "{\\"value\\": \\"" .. value .. "\\"}")\nend\n')
        wrk(f"http://127.0.0.1:{port}/hello", 2)  # warm-up
        load_start = loadavg()

        # The slow plugin's clients: 8, each committing to its own run of it in a loop (3 s a call) while `busy` is
        # set; between its rounds they finish the call in flight and wait, so the rounds without it are without it.
        slow_runs = [client.call("POST", "/api/v1/runs", {"operation": "slow.op"})[1]["id"] for _ in range(8)]
        busy = threading.Event()
        stop = [False]
        in_flight = [0]
        flight_lock = threading.Lock()
        slow_calls = []

        def keep_busy(run):
            caller = Client(port, client.token)
            while not stop[0]:
                if not busy.wait(0.1):
                    continue
                with flight_lock:
                    in_flight[0] += 1
                started = time.perf_counter()
                status = caller.call("PUT", f"/api/v1/runs/{run}/atoms/amount", {"value": "10"})[0]
                slow_calls.append((status, time.perf_counter() - started))
                with flight_lock:
                    in_flight[0] -= 1
        slow_threads = [threading.Thread(target=keep_busy, args=(run,), daemon=True) for run in slow_runs]
        for thread in slow_threads:
            thread.start()

        def quiet():
            """The slow plugin's clients stopped and their calls in flight answered."""
            busy.clear()
            while True:
                with flight_lock:
                    if in_flight[0] == 0:
                        return
                time.sleep(0.1)

        # Rounds, each: /hello, the commits, the commits again while the slow plugin is kept busy. Each figure's
        # baseline is the one measured next to it in the same round (on a shared machine the load moves between
        # rounds more than within one); the rounds' medians are reported.
        rounds = []
        for _ in range(options.rounds):
            measured = {}
            for name, url, script_file, slow in [("hello", "/hello", None, False), ("commits", "/", script, False),
                                                 ("slow", "/", script, True)]:
                if slow:
                    busy.set()
                    time.sleep(1)
                before, cpu_before = switches(server.pid), cpu_seconds(server.pid)
                result = wrk(f"http://127.0.0.1:{port}{url}", options.seconds, script_file)
                measured[name] = result
                measured[name + " requests"] = wrk.requests
                measured[name + " switches"] = switches_between(before, switches(server.pid))
                measured[name + " cpu"] = cpu_seconds(server.pid) - cpu_before
                measured[name + " load"] = loadavg()
                if slow:
                    quiet()
            rounds.append(measured)
        stop[0] = True
        busy.set()
        for thread in slow_threads:
            thread.join()

        def median(values):
            ordered = sorted(values)
            return ordered[len(ordered) // 2]
        hello = tuple(median(r["hello"][i] for r in rounds) for i in range(3)) + (sum(r["hello"][3] for r in rounds),)
        commits = tuple(median(r["commits"][i] for r in rounds) for i in range(3)) + (sum(r["commits"][3] for r in rounds),)
        beside_slow = tuple(median(r["slow"][i] for r in rounds) for i in range(3)) + (sum(r["slow"][3] for r in rounds),)
        ratios = [r["commits"][0] / r["hello"][0] for r in rounds]
        p99_ratios = [r["commits"][2] / r["hello"][2] for r in rounds]
        slow_ratios = [r["slow"][2] / r["commits"][2] for r in rounds]
        hello_count = sum(r["hello requests"] for r in rounds)
        commit_count = sum(r["commits requests"] for r in rounds)
        hello_switches = sum(sum(r["hello switches"].values()) for r in rounds) / hello_count
        commit_switches = {}
        for r in rounds:
            for name, count in r["commits switches"].items():
                commit_switches[name] = commit_switches.get(name, 0) + count
        hello_cpu = sum(r["hello cpu"] for r in rounds) / hello_count * 1e6
        commit_cpu = sum(r["commits cpu"] for r in rounds) / commit_count * 1e6
        slow_ok = sum(1 for status, _ in slow_calls if status == 200)
        slow_seconds = sum(seconds for _, seconds in slow_calls) / max(1, len(slow_calls))

        # 10,000 open runs (on a new connection: the server closed the first one while it idled through the rounds).
        client = Client(port, client.token)
        for _ in range(10_000 - len(runs)):
            client.call("POST", "/api/v1/runs", {"operation": "pay.pp.quick"})
        time.sleep(1)
        runs_rss = rss_mb(server.pid)
        health = client.call("GET", "/health")[1]

        # Sign + post: customers each with one reviewed payment, signed concurrently with their current codes.
        signers = []
        for index in range(options.signers):
            name = f"signer{index}"
            their_secret, their_accounts = add_customer(data, name, "pw-" + name)
            person = Client(port)
            person.token = person.call("POST", "/api/v1/session", {"customer": name, "password": "pw-" + name})[1]["token"]
            run = person.call("POST", "/api/v1/runs", {"operation": "pay.pp.quick"})[1]["id"]
            for atom, value in quick_values(their_accounts[0]):
                person.call("PUT", f"/api/v1/runs/{run}/atoms/{atom}", {"value": value})
            assert person.call("POST", f"/api/v1/runs/{run}/submit")[0] == 200
            signers.append((person.token, run, their_secret))

        def sign(signer):
            token, run, their_secret = signer
            person = Client(port, token)
            return person.call("POST", f"/api/v1/runs/{run}/sign", {"code": totp(their_secret)})[0]

        started = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            statuses = list(pool.map(sign, signers))
        elapsed = time.perf_counter() - started
        posted = statuses.count(200)
        sign_rate = posted / elapsed
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        shutil.rmtree(data, ignore_errors=True)

    # The embedded figures rbs-bench wrote (same machine, earlier in the same session): group commit and one at a time.
    embedded_group = embedded_single = None
    benchmarks = os.path.join(ROOT, "BENCHMARKS.md")
    if os.path.exists(benchmarks):
        text = open(benchmarks).read()
        found = re.search(r"sign \+ journal \+ post, group commit[^|]*\| (\d+) ops/s", text)
        embedded_group = int(found.group(1)) if found else None
        found = re.search(r"sign \+ journal \+ post, one transaction each[^|]*\| (\d+) ops/s", text)
        embedded_single = int(found.group(1)) if found else None
    load = loadavg()

    ratio = median(ratios)
    p99_ratio = median(p99_ratios)
    slow_ratio = median(slow_ratios)
    each = lambda values: ", ".join(f"{value:.2f}" for value in values)  # noqa: E731
    round_loads = "; ".join(f"round {index + 1}: /hello {r['hello load']}, commits {r['commits load']}, "
                            f"beside the slow plugin {r['slow load']}" for index, r in enumerate(rounds))
    per_commit = sum(commit_switches.values()) / commit_count
    sources = ", ".join(f"{THREADS.get(name, name)} {count / commit_count:.2f}" for name, count in
                        sorted(commit_switches.items(), key=lambda item: -item[1])[:6])
    rounds_said = f"median of {len(rounds)} rounds" if len(rounds) > 1 else "one round"
    rows = [
        (f"commits/s at 64 connections (PUT …/atoms/amount, 64 open quick payments; {rounds_said})", f"{commits[0]:.0f} req/s",
         f"GET /hello, same process, each round just before: {hello[0]:.0f} req/s", "≥ 0.3× the ceiling",
         f"{ratio:.2f}× (the rounds: {each(ratios)})", ratio >= 0.3),
        (f"commit latency p50 / p99 at 64 connections ({rounds_said})", f"{commits[1]:.2f} / {commits[2]:.2f} ms",
         f"GET /hello: {hello[1]:.2f} / {hello[2]:.2f} ms", "p99 ≤ 3× /hello's p99",
         f"p99 {p99_ratio:.2f}× /hello's (the rounds: {each(p99_ratios)})", p99_ratio <= 3),
        ("commit p99 at 64 connections while another plugin takes 3 s per call (8 clients keep it busy)",
         f"{beside_slow[2]:.2f} ms (p50 {beside_slow[1]:.2f} ms, {beside_slow[0]:.0f} req/s)",
         f"the same commits without it, each round just before: {commits[2]:.2f} ms (p50 {commits[1]:.2f} ms)",
         "≤ 1.5× the run without it",
         f"{slow_ratio:.2f}× (the rounds: {each(slow_ratios)}); the slow plugin answered {slow_ok} of {len(slow_calls)} "
         f"calls, {slow_seconds:.2f} s each on average", slow_ratio <= 1.5),
        ("context switches per commit (server process: its threads, and its plugin workers)", f"{per_commit:.2f}",
         f"GET /hello, per request: {hello_switches:.2f}", "stated", f"by thread: {sources}", None),
        ("server CPU per commit (user + system time of the server and its plugin workers ÷ commits)", f"{commit_cpu:.0f} µs",
         f"GET /hello, per request: {hello_cpu:.0f} µs", "none",
         f"{commit_cpu / hello_cpu:.2f}×: what the load changes least (CPU spent, not waited for)", None),
        ("resident memory, 10,000 open runs (example plugins loaded)", f"{runs_rss:.1f} MB",
         f"after start and login: {base_rss:.1f} MB", "≤ 256 MB", f"{health['openRuns']} runs open", runs_rss <= 256),
        (f"sign + post through the API ({posted} customers, 16 concurrent clients; one code, one transaction each)",
         f"{sign_rate:.0f} ops/s",
         f"embedded group commit (rbs-bench, above): {embedded_group if embedded_group else '—'} ops/s; "
         f"embedded one transaction each: {embedded_single if embedded_single else '—'} ops/s",
         "none", "every signing is its own code check and durable commit (fsync)", None),
    ]
    errors = commits[3] + hello[3] + beside_slow[3]
    lines = ["<!-- serve:begin -->", "## Serving (issue 16): `python3 Benchmarks/serve_load.py`", "",
             f"Measured {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')} on {os.cpu_count()} cores, "
             f"{'release build' if '.build-release' in HOST else 'the build at ' + os.path.relpath(HOST, ROOT)}, wrk -t2 -c64 -d{options.seconds}s on loopback (wrk and the server share the cores). "
             f"Non-2xx answers under load: {errors}. Load average (1/5/15 min, as `uptime` shows it) before /hello: "
             f"{load_start}; at the end of each figure: {round_loads}; at the end: {load}. The machine is shared: at a load above its "
             f"2 cores every figure falls, /hello's with the commits', so the ratios to /hello from the same run are what compare."
             + (f" {options.note}" if options.note else ""), "",
             "| measure | value | baseline | target | ratio / note | met |", "|---|---|---|---|---|---|"]
    for name, value, baseline, target, note, met in rows:
        verdict = "no target" if met is None else "yes" if met else "**no**"
        lines.append(f"| {name} | {value} | {baseline} | {target} | {note} | {verdict} |")
    lines.append("<!-- serve:end -->")
    section = "\n".join(lines)
    print(section)
    if options.write:
        text = open(options.write).read() if os.path.exists(options.write) else "# Benchmarks\n"
        if "<!-- serve:begin -->" in text:
            text = re.sub(r"<!-- serve:begin -->.*?<!-- serve:end -->", lambda _: section, text, flags=re.S)
        else:
            text = text.rstrip("\n") + "\n\n" + section + "\n"
        open(options.write, "w").write(text)
        print(f"written to {options.write}")


if __name__ == "__main__":
    main()
