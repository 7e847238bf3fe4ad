#!/usr/bin/env python3
"""The parity suite (issue #28): every scenario of corpus.json runs through the piped REPL, the one-shot CLI and the
HTTP API, each in a fresh data folder, and must end in the same outcome kind with the same journal.

The rules that protect money are decided once, in the core; a front end only renders the outcome. This suite is how
that is held: a scenario added to the corpus runs through all three front ends without new code.

    parity.py BINARY PLUGINS [--corpus FILE] [--only NAME]

Prints one line per scenario and front end, then `N passed, M failed`; exits 1 when any failed.
"""
import argparse
import json
import os
import select
import shutil
import socket
import concurrent.futures
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CLOCK = "1780000000"  # RBS_CLOCK: the debug host's frozen clock, so every code is computable
HOST_ACCOUNTS = ["40817810438000000001", "40817810738000000002"]
HOST_USD = "40817840638000000004"
ROOT = os.path.dirname(os.path.dirname(HERE))
BLOCKED = "40817810038000000003"
# The cards the bank issues each customer (the host's signer holds the seed's demo cards): number, masked.
CARDS = {"alice": ("4276 3800 0000 0005", "4276 38** **** 0005"), "bob": ("2202 2000 0000 0008", "2202 20** **** 0008")}


class Failure(Exception):
    pass


class World:
    """One front end's fresh data folder: the host's signer (keys init) and two customers, alice and bob."""

    def __init__(self, binary, plugins, extra=()):
        self.binary = binary
        self.data = tempfile.mkdtemp(prefix="rbs-parity-")
        os.chmod(self.data, 0o700)
        self.plugins = with_plugins(plugins, extra, self.data) if extra else plugins
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RBS_") and k not in ("LC_ALL", "LC_MESSAGES")}
        self.env.update(RBS_HOME=self.data, RBS_PLUGINS=self.plugins, RBS_CLOCK=CLOCK, RBS_DEV="1", NO_COLOR="1", LANG="C.UTF-8",
                        SWIFT_BACKTRACE="enable=no")
        self.host(["keys", "init", "--name", "operator"])
        self.accounts = {}
        for name in ("alice", "bob"):
            self.host(["customers", "add", name, "--password-stdin"], stdin=f"{name}-password\n")
            listed = json.loads(self.host(["customers", "list", "--json"]).stdout)
            self.accounts[name] = [a["number"] for a in next(c for c in listed if c["name"] == name)["accounts"]]
            self.host(["customers", "add-card", name, "--number", CARDS[name][0]])

    def host(self, arguments, stdin=None, check=True, timeout=120, env=None):
        result = subprocess.run([self.binary] + arguments, input=stdin, capture_output=True, text=True,
                                env=dict(self.env, **(env or {})), timeout=timeout)
        if check and result.returncode != 0:
            raise Failure(f"rbs-host {' '.join(arguments)}: exit {result.returncode}: {result.stderr.strip()}")
        return result

    def roles(self, actor):
        """{own1}, {own2}, {usd1}, {other1}, {othercard}, {blocked} for `actor`: the host's signer or a customer."""
        own = HOST_ACCOUNTS if actor == "host" else self.accounts[actor]
        other = "alice" if actor == "host" else "bob"
        usd = HOST_USD if actor == "host" else self.accounts[actor][2]
        return {"own1": own[0], "own2": own[1], "usd1": usd, "other1": self.accounts[other][0],
                "othercard": CARDS[other][1], "blocked": BLOCKED}

    def import_rates(self, rates):
        """The bank's rates of a scenario: `rbs-host rates import FILE --margin M`, `hoursAgo` hours before the clock
        every front end then runs on."""
        clock = str(int(CLOCK) - int(rates.get("hoursAgo", 0)) * 3600)
        self.host(["rates", "import", os.path.join(ROOT, rates["file"]), "--margin", rates.get("margin", "1.5")],
                  env={"RBS_CLOCK": clock})

    def code(self, actor, kind):
        if kind == "wrong":
            return "000000"
        if actor == "host":
            return self.host(["keys", "code"]).stdout.strip()
        return self.host(["customers", "code", actor]).stdout.strip()

    def journal(self):
        entries = json.loads(self.host(["journal", "--json"]).stdout)
        return [entry["kind"] if "kind" in entry else entry["status"] for entry in entries]

    def close(self):
        shutil.rmtree(self.data, ignore_errors=True)


def with_plugins(plugins, sources, data):
    """A plugins folder of the examples and the scenario's own C plugins (`plugins` in the corpus: sources under the
    repository), compiled against the SDK's headers; unsigned, as RBS_DEV=1 allows."""
    folder = os.path.join(data, "plugins")
    os.mkdir(folder)
    for name in os.listdir(plugins):
        if name.endswith(".so"):
            shutil.copy(os.path.join(plugins, name), folder)
    for source in sources:
        output = os.path.join(folder, os.path.splitext(os.path.basename(source))[0] + ".so")
        built = subprocess.run(["cc", "-std=c11", "-shared", "-fPIC", "-fvisibility=hidden", "-I",
                                os.path.join(ROOT, "SDK/Sources/CRBSPlugin/include"), "-o", output,
                                os.path.join(ROOT, source)], capture_output=True, text=True)
        if built.returncode != 0:
            raise Failure(f"cc {source}: {built.stderr.strip()}")
    return folder


def fill(values, roles):
    return [(atom, value.format(**roles)) for atom, value in values]


def documents(scenario):
    return scenario.get("basket") or [{"operation": scenario["operation"], "values": scenario["values"]}]


# MARK: - The one-shot CLI (the host's signer)

def run_cli(world, scenario):
    roles = world.roles("host")
    code = world.code("host", scenario["code"])
    if "basket" in scenario:
        path = os.path.join(world.data, "basket.json")
        with open(path, "w") as file:
            json.dump({"documents": [{"operation": d["operation"], "set": [f"{a}={v}" for a, v in fill(d["values"], roles)]}
                                     for d in documents(scenario)]}, file, ensure_ascii=False)
        result = world.host(["basket", "sign", "--file", path, "--code", code, "--json"], check=False)
    else:
        sets = [arg for atom, value in fill(scenario["values"], roles) for arg in ("--set", f"{atom}={value}")]
        result = world.host(["run", scenario["operation"]] + sets + ["--code", code, "--json"], check=False)
    try:
        report = json.loads(result.stdout)
    except ValueError:
        raise Failure(f"no JSON report: exit {result.returncode}, {result.stdout!r} {result.stderr!r}")
    if report.get("status") == "posted":
        return "posted", None
    errors = report.get("errors") or []
    if not errors:
        raise Failure(f"status {report.get('status')} with no errors: {report}")
    first = errors[0]
    kind = classify(first.get("message", ""))
    if kind == "needs-attention":
        return kind, first.get("atom")
    if kind.startswith("other") and first.get("atom"):
        return "invalid-value", first["atom"]
    return kind, None


def classify(message):
    """The outcome kind a core message says (the core's own words, the same in every front end)."""
    if message.startswith("the bank would refuse this document") or message.startswith("банк отклонит"):
        return "refused"
    if "repeats" in message and ("journal entry" in message or "document" in message):
        return "duplicate"
    if message.startswith("required: ") or message.startswith("обязательное поле: "):
        return "needs-attention"
    # An amount the form cleared because its account is in another currency now (rbs.amount-currency/1).
    if "enter it again in " in message or "введите её заново в " in message:
        return "needs-attention"
    if message.startswith("the one-time code is wrong") or message.startswith("одноразовый код неверен"):
        return "wrong-code"
    if "the run was ended, nothing was signed or posted" in message:
        return "plugin-fault"
    return "other: " + message


# MARK: - The piped REPL (the host's signer)

class PipedREPL:
    """The REPL reading a pipe: lines are written one at a time and what it prints in between is read back."""

    def __init__(self, world):
        self.process = subprocess.Popen([world.binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=world.env)
        self.out, self.err = b"", b""
        self.quiet()

    def send(self, line):
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()
        return self.quiet()

    def quiet(self, settle=0.5, limit=30):
        """Reads until nothing more arrives for `settle` seconds; returns what arrived (stdout + stderr)."""
        got, deadline, last = b"", time.time() + limit, time.time()
        streams = [self.process.stdout, self.process.stderr]
        while time.time() < deadline and time.time() - last < settle:
            ready, _, _ = select.select(streams, [], [], 0.05)
            for stream in ready:
                chunk = os.read(stream.fileno(), 65536)
                if chunk:
                    last = time.time()
                    got += chunk
                    if stream is self.process.stdout:
                        self.out += chunk
                    else:
                        self.err += chunk
        return got.decode(errors="replace")

    def close(self):
        try:
            self.process.stdin.write(b"quit\n")
            self.process.stdin.close()
        except OSError:
            pass
        self.process.wait(timeout=30)


def walk(world, operation, values):
    """The lines that walk a form prefilled with `values`: Enter on every visible atom the REPL asks about, in order
    (as `describe` lists them), up to and including the submit button."""
    sets = [arg for atom, value in values for arg in ("--set", f"{atom}={value}")]
    described = json.loads(world.host(["describe", operation] + sets + ["--json"], check=False).stdout)
    asked = [atom for atom in described["atoms"] if atom["visible"] and atom["kind"] != "text"]
    return len(asked)


def quoted(values):
    return " ".join("'" + f"{atom}={value}".replace("'", "") + "'" for atom, value in values)


def run_repl(world, scenario):
    roles = world.roles("host")
    repl = PipedREPL(world)
    try:
        seen = ""
        for document in documents(scenario):
            values = fill(document["values"], roles)
            command = ("basket add " if "basket" in scenario else "run ") + document["operation"] + " " + quoted(values)
            seen += repl.send(command)
            for _ in range(walk(world, document["operation"], values)):
                seen += repl.send("")
        if "basket" in scenario:
            seen += repl.send("basket sign")
        outcome = settle(repl, seen, world.code("host", scenario["code"]))
        # The REPL names a field by its caption, as a person reads it: the atom is the one with that caption.
        if outcome[0] in ("invalid-value", "needs-attention") and outcome[1]:
            captions = {}
            for document in documents(scenario):
                described = json.loads(world.host(["describe", document["operation"], "--json"], check=False).stdout)
                captions.update({atom["caption"]: atom["id"] for atom in described["atoms"]})
            outcome = (outcome[0], captions.get(outcome[1], outcome[1]))
        return outcome
    finally:
        repl.close()


def settle(repl, seen, code):
    """After the form is submitted: a repeat is answered no (nothing is confirmed on the person's behalf), a refusal
    or a refused value is the outcome; else the review waits for the code."""
    if "Warning:" in seen:
        repl.send("no")
        return "duplicate", None
    outcome = repl_outcome(seen)
    if outcome:
        return outcome
    answer = repl.send(code)
    repl.send("cancel")
    repl.send("cancel")
    return repl_outcome(answer) or ("other: " + answer.strip()[-300:], None)


def repl_outcome(text):
    attention = False
    for line in text.splitlines():
        line = line.strip()
        # "Needs attention:", then a line for each atom: "⚠ required: CAPTION" names a required atom left empty.
        if line == "Needs attention:":
            attention = True
            continue
        if attention and line.startswith("⚠ "):
            kind = classify(line[2:])
            if kind == "needs-attention":
                # "⚠ required: CAPTION", or "⚠ CAPTION: what it needs" (an amount cleared for another currency).
                before, after = line[2:].split(":", 1)
                return kind, after.strip() if classify(before + ": ") == "needs-attention" else before.strip()
            continue
        if line.startswith("error:"):
            message = line[len("error:"):].strip()
            kind = classify(message)
            if kind.startswith("other") and "is not one of the accounts offered" in message:
                return "invalid-value", message.split(":")[0].strip() or None
            if kind.startswith("other"):
                return "invalid-value", None
            return kind, None
        if "posted — journal entry" in line:
            return "posted", None
    return None


# MARK: - The HTTP API (the customer alice)

class Server:
    def __init__(self, world):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process = subprocess.Popen([world.binary, "serve", "--listen", f"127.0.0.1:{self.port}"], env=world.env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if self.call("GET", "/health")[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        raise Failure("serve did not answer /health within 60 s")

    def call(self, method, path, body=None, token=None):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                         data=None if body is None else json.dumps(body).encode())
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                text = answer.read()
                return answer.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, json.loads(text) if text else None

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def problem_outcome(status, answer):
    kind = (answer or {}).get("type", "").rsplit(":", 1)[-1]
    return {"would-be-rejected": ("refused", None), "duplicate": ("duplicate", None), "wrong-code": ("wrong-code", None),
            "step-up-required": ("step-up-required", None), "plugin-failed": ("plugin-fault", None),
            "invalid-value": ("invalid-value", (answer or {}).get("atom")),
            "needs-attention": ("needs-attention", (answer or {}).get("atom"))}.get(kind, (f"other: {status} {answer}", None))


def run_api(world, scenario):
    server = Server(world)
    try:
        status, session = server.call("POST", "/api/v1/session", {"customer": "alice", "password": "alice-password"})
        if status != 200:
            raise Failure(f"login: {status} {session}")
        token = session["token"]
        if scenario.get("enrolPasskey"):
            status, options = server.call("POST", "/api/v1/passkeys/challenge", None, token)
            status, answer = server.call("POST", "/api/v1/passkeys", {"credentialId": "AAAA", "clientDataJSON": "e30",
                                                                       "attestationObject": "oA"}, token)
            return problem_outcome(status, answer)
        roles = world.roles("alice")
        runs = []
        for document in documents(scenario):
            status, run = server.call("POST", "/api/v1/runs", {"operation": document["operation"]}, token)
            if status != 201:
                raise Failure(f"open {document['operation']}: {status} {run}")
            for atom, value in fill(document["values"], roles):
                status, answer = server.call("PUT", f"/api/v1/runs/{run['id']}/atoms/{atom}", {"value": value}, token)
                if status != 200:
                    outcome = problem_outcome(status, answer)
                    return outcome if outcome[0] != "invalid-value" or outcome[1] else ("invalid-value", atom)
                # A commit answers with the atoms it changed (`changed`); a whole form answers `atoms`.
                errors = [a for a in answer.get("changed", answer.get("atoms", [])) if a.get("id") == atom and a.get("error")]
                if errors:
                    return "invalid-value", atom
            status, review = server.call("POST", f"/api/v1/runs/{run['id']}/submit", None, token)
            if status != 200:
                return problem_outcome(status, review)
            runs.append(run["id"])
        code = world.code("alice", scenario["code"])
        if "basket" in scenario:
            status, review = server.call("POST", "/api/v1/baskets", {"runs": runs}, token)
            if status not in (200, 201):
                return problem_outcome(status, review)
            status, answer = server.call("POST", f"/api/v1/baskets/{review['basket']}/sign", {"code": code}, token)
        else:
            status, answer = server.call("POST", f"/api/v1/runs/{runs[0]}/sign", {"code": code}, token)
        if status == 200 and answer.get("status") == "posted":
            return "posted", None
        return problem_outcome(status, answer)
    finally:
        server.close()


FRONT_ENDS = {"repl": run_repl, "cli": run_cli, "api": run_api}


def check(options, scenario, front):
    """Runs `scenario` through `front` in a world of its own: the problems found (none when it matches)."""
    expected = scenario["expect"]
    world = World(options.binary, options.plugins, scenario.get("plugins", ()))
    try:
        if "rates" in scenario:
            world.import_rates(scenario["rates"])
        outcome, atom = FRONT_ENDS[front](world, scenario)
        journal = world.journal()
        problems = []
        if outcome != expected["outcome"]:
            problems.append(f"outcome {outcome!r}, expected {expected['outcome']!r}")
        if "atom" in expected and atom not in (None, expected["atom"]):
            problems.append(f"atom {atom!r}, expected {expected['atom']!r}")
        if journal != expected["journal"]:
            problems.append(f"journal {journal}, expected {expected['journal']}")
        if world.host(["verify"], check=False).returncode != 0:
            problems.append("verify failed")
    except (Failure, subprocess.TimeoutExpired, KeyError, ValueError) as error:
        problems = [f"{type(error).__name__}: {error}"]
    finally:
        world.close()
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("plugins")
    parser.add_argument("--corpus", default=os.path.join(HERE, "corpus.json"))
    parser.add_argument("--only")
    parser.add_argument("--jobs", type=int, default=4, help="runs at once (each in a world of its own)")
    options = parser.parse_args()
    with open(options.corpus) as file:
        corpus = json.load(file)
    runs = [(scenario, front) for scenario in corpus["scenarios"]
            if not (options.only and options.only not in scenario["name"])
            for front in scenario.get("frontEnds", list(FRONT_ENDS))]
    # Each run has a world of its own (data folder, port), and most of a run's time is waiting for a REPL to fall
    # quiet or a server to start: several at once (--jobs) take a fraction of the time, results in corpus order.
    with concurrent.futures.ThreadPoolExecutor(options.jobs) as pool:
        results = list(pool.map(lambda run: (run, check(options, *run)), runs))
    passed = failed = 0
    for (scenario, front), problems in results:
        if problems:
            failed += 1
            print(f"FAIL {front:4} {scenario['name']}: " + "; ".join(problems), flush=True)
        else:
            passed += 1
            print(f"ok   {front:4} {scenario['name']}", flush=True)
    print(f"parity: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
