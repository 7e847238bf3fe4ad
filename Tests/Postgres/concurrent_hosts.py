#!/usr/bin/env python3
"""Three `rbs-host serve --database postgres://…` hosts serve one bank (issue 17's main test).

Against the PostgreSQL server of RBS_TEST_POSTGRES (Tests/Postgres/cluster.sh run sets it), in a fresh database:
three hosts, each with its own data folder, on three loopback ports; clients sign payments through all of them at
once with passkeys (a passkey signs each document itself, so one customer can sign through several hosts at the same
moment), every payment with a request id. On purpose:
  - some payments are submitted twice with the same request id, through another host (a retried or duplicated
    submission must answer the first outcome and post nothing);
  - every customer's payments come from one account, from several hosts at once, for more than its balance
    (overdraft races: some must be refused for insufficient funds, and no balance may go below zero);
  - one host is killed with SIGKILL several times mid-run and started again (a request that was in flight is retried
    with its request id on another host);
  - the PostgreSQL server itself is stopped and started again while the hosts are under load: they must answer with a
    clear message naming the server, then resume.
Afterwards every acknowledged payment is in the journal once (at the journal entry its answer named), no document or
request is posted twice, no balance is below zero, each balance equals its opening plus its postings, and
`rbs-host verify` passes.

Usage: python3 Tests/Postgres/concurrent_hosts.py [--seconds 40] [--host .build/debug/rbs-host]
Exit 0 when every check holds; 1 with what failed; 77 (skipped) when RBS_TEST_POSTGRES is not set.
"""
import argparse
import base64
import collections
import concurrent.futures
import decimal
import hashlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLUSTER = os.path.join(ROOT, "Tests", "Postgres", "cluster.sh")
ORIGIN = "http://localhost:9955"  # the origin every host binds passkeys to (one passkey for all hosts)
DESTINATION = "40702810638000000123"  # a payee outside the bank: each payment only debits the customer's account

try:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
except ImportError:  # make test installs it; a plain run says what to do
    sys.exit("concurrent_hosts.py needs the cryptography package: python3 -m pip install cryptography")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor(value):
    """Just enough CBOR for an attestation object: ints, bytes, text, maps."""
    def head(major, n):
        if n < 24:
            return bytes([major << 5 | n])
        if n < 256:
            return bytes([major << 5 | 24, n])
        return bytes([major << 5 | 25, n >> 8, n & 0xFF])
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, bytes):
        return head(2, len(value)) + value
    if isinstance(value, str):
        return head(3, len(value.encode())) + value.encode()
    if isinstance(value, list):  # a map as a list of pairs, to keep the order
        return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value)
    raise TypeError(value)


class Passkey:
    """A software WebAuthn authenticator with a P-256 key; its counter stays 0 (so assertions from several hosts at
    once are not ordered by a counter, as with most platform passkeys)."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.rp_hash = hashlib.sha256(b"localhost").digest()

    def registration(self, challenge):
        numbers = self.key.public_key().public_numbers()
        cose = cbor([(1, 2), (3, -7), (-1, 1), (-2, numbers.x.to_bytes(32, "big")), (-3, numbers.y.to_bytes(32, "big"))])
        auth_data = self.rp_hash + bytes([0x45]) + bytes(4) + bytes(16) + len(self.credential_id).to_bytes(2, "big") \
            + self.credential_id + cose
        attestation = cbor([("fmt", "none"), ("attStmt", []), ("authData", auth_data)])
        client = json.dumps({"type": "webauthn.create", "challenge": challenge, "origin": ORIGIN, "crossOrigin": False},
                            separators=(",", ":")).encode()
        return {"credentialId": b64url(self.credential_id), "clientDataJSON": b64url(client),
                "attestationObject": b64url(attestation)}

    def assertion(self, challenge):
        auth_data = self.rp_hash + bytes([0x05]) + bytes(4)
        client = json.dumps({"type": "webauthn.get", "challenge": challenge, "origin": ORIGIN, "crossOrigin": False},
                            separators=(",", ":")).encode()
        signature = self.key.sign(auth_data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {"credentialId": b64url(self.credential_id), "authenticatorData": b64url(auth_data),
                "clientDataJSON": b64url(client), "signature": b64url(signature)}


class Unreachable(Exception):
    """The host did not answer (killed, restarting): the outcome of what was sent is unknown."""


def call(port, method, path, body=None, token=None, timeout=60):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    try:
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        answer = connection.getresponse()
        data = answer.read()
    except (OSError, http.client.HTTPException) as error:
        raise Unreachable(str(error))
    finally:
        connection.close()
    try:
        return answer.status, (json.loads(data) if data else None)
    except ValueError:
        return answer.status, {"detail": data.decode(errors="replace")}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Host:
    """One `rbs-host serve` process: its data folder, its port, started again after a kill."""

    def __init__(self, binary, name, database, workdir):
        self.binary, self.name, self.database = binary, name, database
        self.data = os.path.join(workdir, name)
        os.makedirs(self.data, mode=0o700)
        self.port = free_port()
        self.log = os.path.join(workdir, name + ".log")
        self.process = None
        self.lock = threading.Lock()
        self.kills = 0

    def start(self):
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(
                [self.binary, "serve", "--dev", "--isolation", "none", "--data", self.data, "--database", self.database,
                 "--plugins", os.path.join(ROOT, "Plugins"), "--listen", f"127.0.0.1:{self.port}", "--origin", ORIGIN],
                stdout=log, stderr=log)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if call(self.port, "GET", "/health", timeout=2)[0] == 200:
                    return
            except Unreachable:
                pass
            if self.process.poll() is not None:
                raise SystemExit(f"{self.name} exited with {self.process.returncode} while starting; see {self.log}:\n"
                                 + open(self.log).read()[-2000:])
            time.sleep(0.1)
        raise SystemExit(f"{self.name} did not answer /health within 60 s; see {self.log}")

    def kill(self):
        with self.lock:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.kills += 1

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Customer:
    def __init__(self, name, password, account):
        self.name, self.password, self.account = name, password, account
        self.passkey = Passkey()
        self.tokens = {}  # port -> session token (sessions are each host's own)
        self.lock = threading.Lock()

    def token(self, host):
        with self.lock:
            if host.port in self.tokens:
                return self.tokens[host.port]
        status, answer = call(host.port, "POST", "/api/v1/session", {"customer": self.name, "password": self.password})
        if status != 200:
            raise Unreachable(f"login at {host.name}: {status} {answer}")
        with self.lock:
            self.tokens[host.port] = answer["token"]
        return answer["token"]

    def forget(self, host):
        with self.lock:
            self.tokens.pop(host.port, None)


def psql(url, sql):
    out = subprocess.run(["psql", url, "-X", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"psql failed: {out.stderr}")
    return [line.split("\t") for line in out.stdout.splitlines() if line]


class Run:
    """The shared state of the clients: what was acknowledged, what the outage looked like."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acknowledged = {}  # (customer, request id) -> (status, journal entry)
        self.duplicates = 0  # resubmissions that answered
        self.unknown = 0  # answers lost with a killed host (retried)
        self.outage_messages = []
        self.errors = []
        self.refused_funds = 0  # journaled as rejected: the balance was gone by the time the signing committed
        self.refused_at_review = 0  # refused before signing (the review saw the balance too low)
        self.outage_started_at = None  # when the database was being stopped
        self.outage_ended_at = None  # when it answered again (plus a moment for the hosts to reconnect)
        self.resumed_after_outage = 0

    def outage_active(self):
        now = time.time()
        return self.outage_started_at is not None and now >= self.outage_started_at \
            and (self.outage_ended_at is None or now < self.outage_ended_at)


def sign_once(host, customer, request_id, amount):
    """One payment through one host: open, fill, submit, sign with the passkey. Returns (status, answer)."""
    token = customer.token(host)
    status, opened = call(host.port, "POST", "/api/v1/runs", {"operation": "pay.pp.quick"}, token)
    if status == 401:
        customer.forget(host)
        raise Unreachable("session expired (host restarted)")
    if status != 201 and status != 200:
        return status, opened
    run = opened["id"]
    for atom, value in [("srcAccount", customer.account), ("destName", "ООО Ромашка"), ("destInn", "1234567894"),
                        ("destAccount", DESTINATION), ("destBic", "044525225"), ("destDesc", "оплата по счёту"),
                        ("amount", amount)]:
        status, answer = call(host.port, "PUT", f"/api/v1/runs/{run}/atoms/{atom}", {"value": value}, token)
        if status != 200:
            return status, answer
    status, review = call(host.port, "POST", f"/api/v1/runs/{run}/submit", None, token)
    if status != 200:
        return status, review
    assertion = customer.passkey.assertion(review["passkey"]["challenge"])
    return call(host.port, "POST", f"/api/v1/runs/{run}/sign", {"passkey": assertion, "requestId": request_id, "confirmDuplicate": True}, token)


def client(worker, hosts, customers, run, stop_at):
    rng = random.Random(worker)
    customer = customers[worker % len(customers)]
    n = 0
    while time.time() < stop_at:
        n += 1
        request_id = f"w{worker}-{n}"
        amount = str(rng.randint(1500, 4500))  # more than the balance in all: some are refused, racing for the last funds
        first = None
        attempts = 0
        # Until this request has an answer: a host that died with it in flight leaves the outcome unknown, and the
        # request id makes the retry (on any host) safe. While the database is down every step may fail; the
        # request waits for it and goes on.
        while first is None and attempts < 400:
            attempts += 1
            host = hosts[(worker + n + attempts) % len(hosts)]
            try:
                status, answer = sign_once(host, customer, request_id, amount)
            except Unreachable as error:
                with run.lock:
                    run.unknown += 1
                    if run.outage_active():
                        run.outage_messages.append(str(error))
                time.sleep(0.2)
                continue
            if status == 200:
                first = (answer["status"], answer["journal"])
                if answer["status"] == "rejected":
                    with run.lock:
                        run.refused_funds += 1
                with run.lock:
                    if run.outage_ended_at and time.time() > run.outage_ended_at:
                        run.resumed_after_outage += 1
            elif status == 422 and (answer or {}).get("type", "").endswith(":would-be-rejected"):
                # Refused at review for insufficient funds (the balance other hosts left): nothing signed, nothing
                # posted by this attempt. (An earlier attempt lost with a killed host may have posted it: the
                # database check below counts every entry against its request.)
                with run.lock:
                    run.refused_at_review += 1
                    # The core answered from the database after the restart: the host resumed (the customers'
                    # funds may be gone by then on a fast machine, so no payment can be acknowledged any more).
                    if run.outage_ended_at and time.time() > run.outage_ended_at:
                        run.resumed_after_outage += 1
                break
            elif run.outage_active():
                with run.lock:
                    run.outage_messages.append((answer or {}).get("detail", str(answer)))
                time.sleep(0.3)
            else:
                with run.lock:
                    run.errors.append(f"{request_id} via {host.name}: {status} {answer}")
                break
        if first is None:
            continue
        with run.lock:
            run.acknowledged[(customer.name, request_id)] = first
        # Now and then the same request again, through another host: it must answer the first outcome.
        if rng.random() < 0.12:
            host = hosts[(worker + n + 1) % len(hosts)]
            try:
                status, answer = sign_once(host, customer, request_id, amount)
            except Unreachable:
                continue
            if status == 200:
                with run.lock:
                    run.duplicates += 1
                    if (answer["status"], answer["journal"]) != first:
                        run.errors.append(f"{request_id} again via {host.name} answered {answer['status']} "
                                          f"entry {answer['journal']}, first {first}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--clients", type=int, default=9)
    parser.add_argument("--customers", type=int, default=3)
    parser.add_argument("--host", default=os.path.join(ROOT, ".build", "debug", "rbs-host"))
    options = parser.parse_args()
    server = os.environ.get("RBS_TEST_POSTGRES")
    cluster = os.environ.get("RBS_TEST_POSTGRES_CLUSTER")
    if not server or not cluster:
        print("SKIPPED: concurrent hosts on PostgreSQL — RBS_TEST_POSTGRES is not set (make test sets it)")
        return 77
    name = "rbs_hosts_" + os.urandom(6).hex()
    psql(server, f"CREATE DATABASE {name}")
    database = server.rsplit("/", 1)[0] + "/" + name  # the test server's address ends with /postgres
    workdir = tempfile.mkdtemp(prefix="rbs-hosts-")
    os.chmod(workdir, 0o700)
    hosts = [Host(options.host, f"host{i}", database, workdir) for i in range(3)]
    run = Run()
    try:
        # The first host's folder creates the ledger; the others only join (their folders start empty).
        subprocess.run([options.host, "init", "--data", hosts[0].data, "--database", database], check=True,
                       capture_output=True, text=True)
        customers = []
        for index in range(options.customers):
            customer_name, password = f"client{index}", f"password-{index}-x"
            added = subprocess.run([options.host, "customers", "add", customer_name, "--password-stdin",
                                    "--data", hosts[0].data, "--database", database],
                                   input=password + "\n", capture_output=True, text=True, check=True)
            account = re.findall(r"\b(408\d{17})\b", added.stdout)[0]
            customers.append(Customer(customer_name, password, account))
        for host in hosts:
            host.start()
        # One passkey per customer, registered through one host, used through all (it is in the database).
        for customer in customers:
            host = hosts[customers.index(customer) % 3]
            token = customer.token(host)
            status, options_ = call(host.port, "POST", "/api/v1/passkeys/challenge", None, token)
            assert status == 200, (status, options_)
            status, registered = call(host.port, "POST", "/api/v1/passkeys", customer.passkey.registration(options_["challenge"]), token)
            assert status == 201, (status, registered)

        started = time.time()
        stop_at = started + options.seconds
        events = []

        def chaos():
            # SIGKILL a host several times (hosts 1 and 2 in turn), and stop the database once, in the middle.
            plan = [(0.1, "kill"), (0.2, "kill"), (0.3, "kill"), (0.45, "outage"), (0.7, "kill"), (0.85, "kill")]
            for fraction, what in plan:
                time.sleep(max(0, started + fraction * options.seconds - time.time()))
                if what == "outage":
                    run.outage_started_at = time.time()
                    subprocess.run([CLUSTER, "pause", cluster], check=True)
                    events.append(f"{time.time() - started:5.1f}s PostgreSQL stopped")
                    time.sleep(2)
                    subprocess.run([CLUSTER, "resume", cluster], check=True)
                    events.append(f"{time.time() - started:5.1f}s PostgreSQL started again")
                    run.outage_ended_at = time.time() + 1
                    continue
                victim = hosts[1 + sum(1 for e in events if "SIGKILL" in e) % 2]
                victim.kill()
                events.append(f"{time.time() - started:5.1f}s SIGKILL {victim.name}")
                time.sleep(0.5)
                victim.start()
                events.append(f"{time.time() - started:5.1f}s {victim.name} serving again")

        chaos_thread = threading.Thread(target=chaos)
        chaos_thread.start()
        with concurrent.futures.ThreadPoolExecutor(options.clients) as pool:
            for future in [pool.submit(client, w, hosts, customers, run, stop_at) for w in range(options.clients)]:
                future.result()
        chaos_thread.join()
        elapsed = time.time() - started
        for host in hosts:
            host.stop()

        # What the database holds.
        failures = list(run.errors)
        requests = {(row[0], row[1]): int(row[2]) for row in psql(database, "SELECT c.name, r.request_id, r.journal_seq FROM requests r JOIN customers c ON c.id::text = r.customer")}
        journal = {int(row[0]): row[1] for row in psql(database, "SELECT seq, kind FROM journal")}
        for key, (status, sequence) in run.acknowledged.items():
            if requests.get(key) != sequence:
                failures.append(f"acknowledged {key} ({status}, entry {sequence}) but the database has entry {requests.get(key)}")
            elif status == "posted" and journal.get(sequence) != "posted":
                failures.append(f"acknowledged {key} as posted at entry {sequence}, the journal says {journal.get(sequence)}")
        if len(journal) != len(requests):
            failures.append(f"{len(journal)} journal entries but {len(requests)} request ids: an entry without its request, or doubled")
        doubled = psql(database, "SELECT document_id, COUNT(*) FROM postings GROUP BY document_id HAVING COUNT(*) > 1")
        if doubled:
            failures.append(f"documents posted twice: {doubled[:5]}")
        doubled_journal = psql(database, "SELECT document_id, COUNT(*) FROM journal GROUP BY document_id HAVING COUNT(*) > 1")
        if doubled_journal:
            failures.append(f"documents journaled twice: {doubled_journal[:5]}")
        movement = collections.defaultdict(decimal.Decimal)
        for debit, credit, amount in psql(database, "SELECT debit, credit, amount FROM postings"):
            movement[debit] -= decimal.Decimal(amount)
            movement[credit] += decimal.Decimal(amount)
        for number, balance, opening in psql(database, "SELECT number, balance, opening FROM accounts"):
            if decimal.Decimal(balance) < 0:
                failures.append(f"account {number} is overdrawn: {balance}")
            if decimal.Decimal(opening) + movement[number] != decimal.Decimal(balance):
                failures.append(f"account {number}: opening {opening} + postings {movement[number]} != balance {balance}")
        verify = subprocess.run([options.host, "verify", "--data", hosts[0].data, "--database", database],
                                capture_output=True, text=True)
        if verify.returncode != 0:
            failures.append(f"rbs-host verify failed: {verify.stdout}{verify.stderr}")
        if not run.outage_messages:
            failures.append("no host answered during the PostgreSQL outage with a message (expected 503 naming the server)")
        elif not any("PostgreSQL at 127.0.0.1:" in message for message in run.outage_messages):
            failures.append(f"the outage answers do not name the server: {run.outage_messages[:3]}")
        if run.resumed_after_outage == 0:
            failures.append("no host answered from the database (a payment acknowledged, or refused at review) after the PostgreSQL server came back")
        posted = sum(1 for status, _ in run.acknowledged.values() if status == "posted")
        print(f"concurrent hosts: {len(run.acknowledged)} payments acknowledged in {elapsed:.0f} s through 3 hosts "
              f"({posted} posted, {run.refused_funds} journaled as refused for insufficient funds; {run.refused_at_review} "
              f"refused at review), {run.duplicates} duplicate "
              f"submissions answered with the first outcome, {run.unknown} answers lost to kills and retried, "
              f"{sum(h.kills for h in hosts)} SIGKILLs, {len(run.outage_messages)} outage answers, "
              f"{run.resumed_after_outage} answered from the database after the outage; journal {len(journal)} entries")
        for event in events:
            print("  " + event)
        if run.outage_messages:
            print("  an outage answer: " + run.outage_messages[0][:300])
        if failures:
            print("FAILED:")
            for failure in failures[:30]:
                print("  " + failure)
            return 1
        print("concurrent hosts: every check passed")
        return 0
    finally:
        for host in hosts:
            try:
                host.stop()
            except Exception:
                pass
        if os.environ.get("RBS_KEEP_HOSTS") != "1":
            try:
                psql(server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            except SystemExit:
                pass
        if os.environ.get("RBS_KEEP_HOSTS") != "1":
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print("kept " + workdir)


if __name__ == "__main__":
    sys.exit(main())
