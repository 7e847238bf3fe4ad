#!/usr/bin/env python3
"""Three `rbs-host serve --database postgres://…` hosts serve one bank (issue 17's main test): thousands of documents.

Against the PostgreSQL server of RBS_TEST_POSTGRES (Tests/Postgres/cluster.sh run sets it), in a fresh database:
three hosts, each with its own data folder, on three loopback ports; clients post through all of them at once, each
document with a request id, until --documents are acknowledged (2 400 by default; fewer than --minimum, 2 000, by
the --seconds deadline fail the test):
  - single payments signed with passkeys (a passkey signs each document itself, so one customer signs through
    several hosts at the same moment), by several workers per customer;
  - signing baskets: customers with TOTP codes fill 50 payments on a host, make them a basket and sign it with ONE
    code; each document is posted or refused on its own (a customer may use each 30-second code once, so these
    customers sign a basket per code).
On purpose:
  - some payments are submitted twice with the same request id, through another host (a retried or duplicated
    submission must answer the first outcome and post nothing);
  - about one payment in eight (one basket document in ten) comes from the customer's current account, from several
    hosts at once, for more than its balance in all (overdraft races: some must be refused for insufficient funds,
    and no balance may go below zero); the rest are small payments from the savings account;
  - one host is killed with SIGKILL five times mid-run and started again (a request or basket that was in flight is
    retried with its request id on another host);
  - the PostgreSQL server itself is stopped and started again while the hosts are under load: they must answer with a
    clear message naming the server, then resume.
With --failover (issue 30) the bank runs on a primary with a synchronous standby of its own (cluster.sh standby),
the hosts are given both servers (postgres://…@PRIMARY,STANDBY/db?target_session_attrs=read-write), and instead of
the restart the primary is killed as a crash would (pg_ctl stop -m immediate) mid-load and the standby promoted: the
hosts must follow it, and every payment acknowledged before the crash must be on the standby, none doubled.
Each fault happens when its share of --documents is acknowledged, or at that share of 80% of --seconds if sooner.
Afterwards every acknowledged payment and basket document is in the journal once (at the journal entry its answer
named; a basket's under its id), every journal entry answers a request, no document is journaled or posted twice,
no balance is below zero, each balance equals its opening plus its postings, and `rbs-host verify` passes. The end
says how many documents were acknowledged, duplicated and refused, and the time taken.

What bounds the rate: every document is 8 or 9 HTTP requests to a host (open, one per field, submit) plus its
signing; a host calls a plugin one request at a time; every signing commits behind the ledger's one advisory lock;
a login costs the host a password KDF (so: few customers, several workers each, kept-alive connections).

Usage: python3 Tests/Postgres/concurrent_hosts.py [--documents 2400] [--minimum 2000] [--seconds 180] [--failover]
                                                  [--host .build/debug/rbs-host]
Exit 0 when every check holds; 1 with what failed; 77 (skipped) when RBS_TEST_POSTGRES is not set.
"""
import argparse
import base64
import collections
import concurrent.futures
import decimal
import hashlib
import hmac
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


class LoginFailed(Unreachable):
    """A login the host did not take (it was restarting, or the database was down): log in again."""

    def __init__(self, message, status, answer):
        super().__init__(message)
        self.status, self.answer = status, answer


_connections = threading.local()


def call(port, method, path, body=None, token=None, timeout=60):
    """One request on this thread's kept-alive connection to `port` (a new TCP connection per request costs the
    server and the client more than many of the requests themselves); a connection that failed is dropped."""
    pool = getattr(_connections, "pool", None)
    if pool is None:
        pool = _connections.pool = {}
    connection = pool.pop(port, None) or http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    connection.timeout = timeout
    if connection.sock is not None:
        connection.sock.settimeout(timeout)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    try:
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        answer = connection.getresponse()
        data = answer.read()
    except (OSError, http.client.HTTPException) as error:
        connection.close()
        raise Unreachable(f"{type(error).__name__}: {error}")
    if answer.will_close:
        connection.close()
    else:
        pool[port] = connection
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
                 "--plugins", os.path.join(ROOT, "Plugins"), "--listen", f"127.0.0.1:{self.port}", "--origin", ORIGIN,
                 # A basket customer here holds up to 50 reviewed runs at once (one basket), more than a person's 20.
                 "--runs-per-customer", "1000"],
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
    """A customer of the bank: two RUB accounts (the current account, 150 000, which the overdraft races drain; the
    savings account, 500 000, which the bulk of small payments comes from), a login per host, and either a passkey
    (signs each payment itself) or a TOTP secret (signs baskets, one code for many documents)."""

    def __init__(self, name, password, current, savings, totp_secret=None, secret=None):
        self.name, self.password, self.current, self.savings = name, password, current, savings
        self.totp_secret = totp_secret
        self.secret = secret  # the TOTP secret every customer has: enrolling a passkey takes its current code (step-up)
        self.passkey = None if totp_secret else Passkey()
        self.tokens = {}  # port -> session token (sessions are each host's own)
        self.login_locks = collections.defaultdict(threading.Lock)  # port -> held while logging in there
        self.lock = threading.Lock()
        self.last_step = None  # the last TOTP step this customer signed with (the ledger accepts each step once)

    def token(self, host):
        """The session on `host`, logging in when there is none. The customer's workers wait for one login on a host
        (as a person's app logs in once): parallel logins of one customer from one address would take the slots of
        the login limit (an attempt counts while it is checked), and each costs the host a password KDF."""
        with self.login_locks[host.port]:
            with self.lock:
                if host.port in self.tokens:
                    return self.tokens[host.port]
            status, answer = call(host.port, "POST", "/api/v1/session", {"customer": self.name, "password": self.password})
            if status != 200:
                raise LoginFailed(f"login at {host.name}: {status} {answer}", status, answer)
            with self.lock:
                self.tokens[host.port] = answer["token"]
            return answer["token"]

    def forget(self, host):
        with self.lock:
            self.tokens.pop(host.port, None)

    def code(self, stop):
        """A TOTP code for a step this customer has not signed with: the current step or the next (both accepted,
        whatever side of a step boundary the server reads the clock on); else waits for the next step. None when
        `stop` is set while waiting."""
        while True:
            now = int(time.time()) // 30
            with self.lock:
                step = now if self.last_step is None else max(self.last_step + 1, now)
                if step <= now + 1:
                    self.last_step = step
                    return totp(self.totp_secret, step)
            if stop.wait(0.5):
                return None


def totp(secret, step):
    digest = hmac.new(secret, step.to_bytes(8, "big"), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return "%06d" % ((int.from_bytes(digest[offset:offset + 4], "big") & 0x7FFFFFFF) % 1_000_000)


def psql(url, sql):
    out = subprocess.run(["psql", url, "-X", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"psql failed: {out.stderr}")
    return [line.split("\t") for line in out.stdout.splitlines() if line]


class Run:
    """The shared state of the clients: what was acknowledged, what the outage looked like."""

    def __init__(self, target):
        self.lock = threading.Lock()
        self.target = target
        self.stop = threading.Event()  # set when the run ends (enough documents and every planned fault, or the deadline)
        self.acknowledged = {}  # (customer, request id) -> (status, journal entry): single payments
        self.baskets = {}  # (customer, request id) -> (basket id, [(status, journal entry), ...])
        self.documents = 0  # documents acknowledged (journaled, posted or refused), singles and in baskets
        self.duplicates = 0  # resubmissions that answered
        self.unknown = 0  # answers lost with a killed host or the stopped database (retried)
        self.outage_messages = []
        self.outage_statuses = collections.Counter()  # the HTTP status of every answer during the outage
        self.unclear = []  # answers during the outage that were not 503 database-unavailable (an internal error …)
        self.errors = []
        self.refused_funds = 0  # journaled as rejected: the balance was gone by the time the signing committed
        self.refused_at_review = 0  # refused before signing (the review saw the balance too low)
        self.race_posted = 0  # payments from the current accounts (the overdraft races) that were posted
        self.outage_started_at = None  # when the database was being stopped
        self.outage_ended_at = None  # when it answered again (plus a moment for the hosts to reconnect)
        self.resumed_after_outage = 0

    def outage_active(self):
        now = time.time()
        return self.outage_started_at is not None and now >= self.outage_started_at \
            and (self.outage_ended_at is None or now < self.outage_ended_at)

    def after_outage(self):
        return self.outage_ended_at is not None and time.time() > self.outage_ended_at

    def lost(self, error):
        if isinstance(error, LoginFailed) and self.outage_active():
            self.outage_answer(error.status, error.answer)
        with self.lock:
            self.unknown += 1
            if self.outage_active():
                self.outage_messages.append(str(error))

    def outage_answer(self, status, answer):
        """An answer while the database was down (or just after): a 503 naming the server is clear."""
        with self.lock:
            self.outage_messages.append((answer or {}).get("detail", str(answer)))
            self.outage_statuses[status] += 1
            if status >= 500 and status != 503:
                self.unclear.append(f"{status} {answer}")


class Refused(Exception):
    """An answer that ends this document's attempt: `kind` is 'review' (the core refused it before signing),
    'outage' (the database is down: wait and retry) or 'error' (unexpected)."""

    def __init__(self, kind, status, answer):
        super().__init__(f"{status} {answer}")
        self.kind, self.status, self.answer = kind, status, answer


class Ended(Exception):
    """The run ended while a basket was being filled: it is not signed."""


def answer_problem(run, status, answer, host=None, customer=None):
    if status == 401 or (status == 404 and "runs end" in str(answer)) or (status == 404 and "baskets end" in str(answer)):
        # The host was killed and started again: its logins, runs and baskets are gone.
        if customer is not None:
            customer.forget(host)
        return Unreachable(f"{host.name if host else 'the host'} forgot the login or run (restarted): {status}")
    if status == 422 and (answer or {}).get("type", "").endswith(":would-be-rejected"):
        return Refused("review", status, answer)
    if run.outage_active() or status == 503:
        run.outage_answer(status, answer)
        return Refused("outage", status, answer)
    return Refused("error", status, answer)


def fill(run, host, customer, token, account, amount, purpose):
    """Opens a quick payment on `host`, fills it and submits it: answers (run id, review). Raises Unreachable (no
    answer) or Refused. The payee's INN (optional) is given for the payments from the current account only: the
    bulk of small payments does without, one request fewer each."""
    status, opened = call(host.port, "POST", "/api/v1/runs", {"operation": "pay.pp.quick"}, token)
    if status not in (200, 201):
        raise answer_problem(run, status, opened, host, customer)
    run_id = opened["id"]
    atoms = [("srcAccount", account), ("destName", "ООО Ромашка"), ("destInn", "1234567894"),
             ("destAccount", DESTINATION), ("destBic", "044525225"), ("destDesc", purpose), ("amount", amount)]
    for atom, value in atoms if account == customer.current else [a for a in atoms if a[0] != "destInn"]:
        status, answer = call(host.port, "PUT", f"/api/v1/runs/{run_id}/atoms/{atom}", {"value": value}, token)
        if status != 200:
            raise answer_problem(run, status, answer, host, customer)
    status, review = call(host.port, "POST", f"/api/v1/runs/{run_id}/submit", None, token)
    if status != 200:
        raise answer_problem(run, status, review, host, customer)
    return run_id, review


def sign_once(run, host, customer, request_id, account, amount, purpose):
    """One payment through one host: open, fill, submit, sign with the passkey. Returns (status, answer)."""
    token = customer.token(host)
    run_id, review = fill(run, host, customer, token, account, amount, purpose)
    assertion = customer.passkey.assertion(review["passkey"]["challenge"])
    return call(host.port, "POST", f"/api/v1/runs/{run_id}/sign",
                {"passkey": assertion, "requestId": request_id, "confirmDuplicate": True}, token)


def payment_worker(worker, hosts, customers, run):
    """Single payments signed with passkeys, one after another, through the hosts in turn; about one in eight from
    the customer's current account for more than its balance allows in all (the overdraft races: the customer's
    other workers pay from the same account through other hosts at the same moment)."""
    rng = random.Random(worker)
    customer = customers[worker % len(customers)]
    n = 0
    while not run.stop.is_set():
        n += 1
        request_id = f"w{worker}-{n}"
        race = rng.random() < 0.12
        account = customer.current if race else customer.savings
        # Large enough that a few posted races drain a current account (150 000) whatever the machine's pace: on a
        # loaded machine 60 race payments of 4 000-12 000 among three customers did not reach a limit.
        amount = str(rng.randint(15000, 40000)) if race else f"{rng.randint(10, 99)}.{rng.randint(0, 99):02d}"
        purpose = f"оплата по счёту {worker}-{n}"
        first = None
        attempts = 0
        # Until this request has an answer: a host that died with it in flight leaves the outcome unknown, and the
        # request id makes the retry (on any host) safe. While the database is down every step may fail; the
        # request waits for it and goes on.
        # At the end of the run a request is not tried again: one whose answer was lost stays unacknowledged (the
        # checks below hold for what was acknowledged; the journal may hold it all the same).
        while first is None and attempts < 400 and not (attempts and run.stop.is_set()):
            attempts += 1
            host = hosts[(worker + n + attempts) % len(hosts)]
            try:
                status, answer = sign_once(run, host, customer, request_id, account, amount, purpose)
            except Unreachable as error:
                run.lost(error)
                time.sleep(0.2)
                continue
            except Refused as refused:
                if refused.kind == "review":
                    # Refused at review for insufficient funds (the balance other hosts left): nothing signed,
                    # nothing posted by this attempt. (An earlier attempt lost with a killed host may have posted
                    # it: the database check below counts every entry against its request.)
                    with run.lock:
                        run.refused_at_review += 1
                        # The core answered from the database after the restart: the host resumed.
                        if run.after_outage():
                            run.resumed_after_outage += 1
                    break
                if refused.kind == "outage":
                    time.sleep(0.3)
                    continue
                with run.lock:
                    run.errors.append(f"{request_id} via {host.name}: {refused}")
                break
            if status == 200:
                first = (answer["status"], answer["journal"])
                with run.lock:
                    run.acknowledged[(customer.name, request_id)] = first
                    run.documents += 1
                    if answer["status"] == "rejected":
                        run.refused_funds += 1
                    elif race:
                        run.race_posted += 1
                    if run.after_outage():
                        run.resumed_after_outage += 1
            elif status == 422 and (answer or {}).get("type", "").endswith(":would-be-rejected"):
                # Refused at the signing, before anything was signed: the core's check found the balance gone
                # since the review (the race for the last funds); nothing journaled, as a refusal at review.
                with run.lock:
                    run.refused_at_review += 1
                break
            elif status in (401, 404):
                run.lost(answer_problem(run, status, answer, host, customer))  # the host restarted before the signing
            elif status == 503 or run.outage_active():
                run.outage_answer(status, answer)
                time.sleep(0.3)
            else:
                with run.lock:
                    run.errors.append(f"{request_id} via {host.name}: {status} {answer}")
                break
        if first is None:
            continue
        # Now and then the same request again, through another host: it must answer the first outcome.
        if rng.random() < 0.08:
            host = hosts[(worker + n + attempts + 1) % len(hosts)]
            try:
                status, answer = sign_once(run, host, customer, request_id, account, amount, purpose)
            except (Unreachable, Refused):
                continue
            if status == 200:
                with run.lock:
                    run.duplicates += 1
                    if (answer["status"], answer["journal"]) != first:
                        run.errors.append(f"{request_id} again via {host.name} answered {answer['status']} "
                                          f"entry {answer['journal']}, first {first}")


def basket_worker(worker, hosts, customer, size, run):
    """Signing baskets: `size` payments filled and submitted on one host, made a basket, signed with ONE TOTP code;
    each is posted or refused on its own. About one in ten from the current account (overdraft races with the
    basket's other documents and the customer's next baskets). A signing whose answer was lost (the host killed,
    the database stopped) is sent again with its request id through another host, as a new basket of the same
    payments: the ledger answers the first outcomes if it was journaled."""
    rng = random.Random(1000 + worker)
    n = 0
    turn = worker
    while not run.stop.is_set():
        n += 1
        request_id = f"b{worker}-{n}"
        payments = []
        for i in range(size):
            race = rng.random() < 0.1
            payments.append((customer.current if race else customer.savings,
                             str(rng.randint(4000, 12000)) if race else f"{rng.randint(10, 99)}.{rng.randint(0, 99):02d}",
                             f"реестр {worker}-{n}-{i}", race))
        first = None
        attempts = 0
        while first is None and attempts < 200 and not (attempts and run.stop.is_set()):
            attempts += 1
            turn += 1
            host = hosts[turn % len(hosts)]
            try:
                token = customer.token(host)
                runs, kept = [], []
                for account, amount, purpose, race in payments:
                    if run.stop.is_set():
                        raise Ended()
                    try:
                        run_id, _ = fill(run, host, customer, token, account, amount, purpose)
                    except Refused as refused:
                        if refused.kind != "review":
                            raise
                        with run.lock:
                            run.refused_at_review += 1
                        continue
                    runs.append(run_id)
                    kept.append(race)
                if not runs:
                    break
                status, review = call(host.port, "POST", "/api/v1/baskets", {"runs": runs}, token)
                if status == 422 and (review or {}).get("type", "").endswith(":would-be-rejected"):
                    break
                if status != 201:
                    raise answer_problem(run, status, review, host, customer)
                # A fresh step's code (waiting for one if this customer used both it may use now).
                code = customer.code(run.stop)
                if code is None:
                    break
                status, answer = call(host.port, "POST", f"/api/v1/baskets/{review['basket']}/sign",
                                      {"code": code, "requestId": request_id, "confirmDuplicate": True}, token)
                if status in (401, 404):
                    raise answer_problem(run, status, answer, host, customer)
            except Ended:
                break
            except Unreachable as error:
                run.lost(error)
                time.sleep(0.2)
                continue
            except Refused as refused:
                if refused.kind == "outage":
                    time.sleep(0.3)
                    continue
                with run.lock:
                    run.errors.append(f"basket {request_id} via {host.name}: {refused}")
                break
            if status == 200:
                first = (answer["basket"], [(r["status"], r["journal"]) for r in answer["receipts"]])
                with run.lock:
                    run.baskets[(customer.name, request_id)] = first
                    run.documents += len(first[1])
                    for (status_, _), race in zip(first[1], kept):
                        if status_ == "rejected":
                            run.refused_funds += 1
                        elif race:
                            run.race_posted += 1
                    if run.after_outage():
                        run.resumed_after_outage += 1
            elif status == 422 and (answer or {}).get("type", "").endswith(":would-be-rejected"):
                with run.lock:
                    run.refused_at_review += 1  # every document refused at the signing: nothing journaled
                break
            elif status == 409 and (answer or {}).get("type", "").endswith(":replayed-code"):
                pass  # refused before anything was journaled: the next attempt takes a fresh step's code
            elif status == 503 or run.outage_active():
                run.outage_answer(status, answer)
                time.sleep(0.3)
            else:
                with run.lock:
                    run.errors.append(f"basket {request_id} via {host.name}: {status} {answer}")
                break


def with_causes(failure, hosts):
    """`failure`, and when it names an internal error's reference (a 500 tells the client only that), the line of the
    host's log that gives its cause."""
    for reference in re.findall(r"""['"]reference['"]: ?['"]([0-9a-f]{16})['"]""", failure):
        for host in hosts:
            try:
                with open(host.log, errors="replace") as log:
                    for line in log:
                        if f"internal error {reference}:" in line:
                            failure += f"\n    {host.name}'s log: {line.strip()[:600]}"
            except OSError:
                pass
    return failure


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=2400,
                        help="the run ends when this many documents are acknowledged (and every planned fault happened)")
    parser.add_argument("--minimum", type=int, default=2000, help="fewer documents acknowledged fail the test")
    parser.add_argument("--seconds", type=float, default=180, help="the run ends at this deadline in any case")
    parser.add_argument("--payment-workers", type=int, default=12)
    # Few customers, several workers each: a login costs the host a password KDF (scrypt), again after each kill.
    parser.add_argument("--customers", type=int, default=3, help="customers signing single payments with passkeys")
    parser.add_argument("--basket-customers", type=int, default=3, help="customers signing baskets with TOTP codes")
    parser.add_argument("--basket-size", type=int, default=50)
    parser.add_argument("--host", default=os.path.join(ROOT, ".build", "debug", "rbs-host"))
    parser.add_argument("--failover", action="store_true",
                        help="a primary and a synchronous standby of the test's own; the primary crashes mid-run and the standby is promoted")
    options = parser.parse_args()
    begun = time.time()
    server = os.environ.get("RBS_TEST_POSTGRES")
    cluster = os.environ.get("RBS_TEST_POSTGRES_CLUSTER")
    if not server or not cluster:
        print("SKIPPED: concurrent hosts on PostgreSQL — RBS_TEST_POSTGRES is not set (make test sets it)")
        return 77
    pair = None
    if options.failover:
        # A pair of the test's own: the shared cluster stays up for the suites after this one.
        pair = tempfile.mkdtemp(prefix="rbs-failover-")
        os.chmod(pair, 0o755)
        cluster, standby = os.path.join(pair, "primary"), os.path.join(pair, "standby")
        subprocess.run([CLUSTER, "start", cluster], check=True, capture_output=True, text=True)
        subprocess.run([CLUSTER, "standby", cluster, standby], check=True, capture_output=True, text=True)
        ports = [open(os.path.join(folder, "port")).read().strip() for folder in (cluster, standby)]
        both = ",".join(f"127.0.0.1:{port}" for port in ports)
        server = f"postgres://rbs:rbs-test@{both}/postgres?target_session_attrs=read-write"
    try:
        return load(options, begun, server, cluster, pair)
    finally:
        if pair:
            for folder in ("standby", "primary"):
                subprocess.run([CLUSTER, "stop", os.path.join(pair, folder)], capture_output=True)
            shutil.rmtree(pair, ignore_errors=True)


def load(options, begun, server, cluster, pair):
    """The run itself against `server` (the shared cluster's address, or the failover pair's both servers)."""
    name = "rbs_hosts_" + os.urandom(6).hex()
    psql(server, f"CREATE DATABASE {name}")
    base, _, rest = server.partition("/postgres")  # the test server's address ends with /postgres[?parameters]
    database = base + "/" + name + rest
    workdir = tempfile.mkdtemp(prefix="rbs-hosts-")
    os.chmod(workdir, 0o700)
    hosts = [Host(options.host, f"host{i}", database, workdir) for i in range(3)]
    run = Run(options.documents)
    try:
        # The first host's folder creates the ledger; the others only join (their folders start empty).
        subprocess.run([options.host, "init", "--data", hosts[0].data, "--database", database], check=True,
                       capture_output=True, text=True)

        def add_customer(index, basket):
            customer_name, password = f"{'basket' if basket else 'client'}{index}", f"password-{index}-x"
            added = subprocess.run([options.host, "customers", "add", customer_name, "--password-stdin",
                                    "--data", hosts[0].data, "--database", database],
                                   input=password + "\n", capture_output=True, text=True, check=True)
            accounts = re.findall(r"\b(40817810\d{12})\b", added.stdout)  # the two RUB accounts: current, savings
            secret = re.search(r"secret=([A-Z2-7]+)", added.stdout).group(1)
            secret = base64.b32decode(secret + "=" * (-len(secret) % 8))
            return Customer(customer_name, password, accounts[0], accounts[1], secret if basket else None, secret)

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            customers = list(pool.map(lambda i: add_customer(i, False), range(options.customers)))
            basket_customers = list(pool.map(lambda i: add_customer(i, True), range(options.basket_customers)))
        for host in hosts:
            host.start()
        # One passkey per payment customer, registered through one host, used through all (it is in the database).
        for index, customer in enumerate(customers):
            host = hosts[index % 3]
            token = customer.token(host)
            status, options_ = call(host.port, "POST", "/api/v1/passkeys/challenge", None, token)
            assert status == 200, (status, options_)
            registration = dict(customer.passkey.registration(options_["challenge"]), code=totp(customer.secret, int(time.time()) // 30))
            status, registered = call(host.port, "POST", "/api/v1/passkeys", registration, token)
            assert status == 201, (status, registered)

        started = time.time()
        deadline = started + options.seconds
        events = []

        if pair:
            plan = [(0.15, "kill"), (0.3, "kill"), (0.45, "failover"), (0.7, "kill")]
        else:
            plan = [(0.1, "kill"), (0.2, "kill"), (0.3, "kill"), (0.45, "outage"), (0.6, "kill"), (0.75, "kill")]

        def chaos():
            # SIGKILL a host several times (hosts 1 and 2 in turn) and stop the database once, each when that share
            # of the documents is acknowledged, or at that share of most of the time allowed, whichever comes first
            # (so every fault happens mid-run on a slow machine too).
            for fraction, what in plan:
                due = started + fraction * 0.8 * options.seconds
                while run.documents < fraction * options.documents and time.time() < due:
                    time.sleep(0.1)
                if what == "failover":
                    run.outage_started_at = time.time()
                    subprocess.run([CLUSTER, "crash", cluster], check=True)
                    events.append(f"{time.time() - started:5.1f}s the primary crashed ({run.documents} documents acknowledged)")
                    time.sleep(2)
                    subprocess.run([CLUSTER, "promote", os.path.join(pair, "standby")], check=True)
                    events.append(f"{time.time() - started:5.1f}s the standby promoted")
                    run.outage_ended_at = time.time() + 1
                    continue
                if what == "outage":
                    run.outage_started_at = time.time()
                    subprocess.run([CLUSTER, "pause", cluster], check=True)
                    events.append(f"{time.time() - started:5.1f}s PostgreSQL stopped ({run.documents} documents acknowledged)")
                    time.sleep(2)
                    subprocess.run([CLUSTER, "resume", cluster], check=True)
                    events.append(f"{time.time() - started:5.1f}s PostgreSQL started again")
                    run.outage_ended_at = time.time() + 1
                    continue
                victim = hosts[1 + sum(1 for e in events if "SIGKILL" in e) % 2]
                victim.kill()
                events.append(f"{time.time() - started:5.1f}s SIGKILL {victim.name} ({run.documents} documents acknowledged)")
                time.sleep(0.5)
                victim.start()
                events.append(f"{time.time() - started:5.1f}s {victim.name} serving again")

        def progress():
            # Ends the run: enough documents after every planned fault, or the deadline. Says how it goes.
            last = started
            while not run.stop.wait(0.2):
                now = time.time()
                if (run.documents >= options.documents and not chaos_thread.is_alive()) or now >= deadline:
                    run.stop.set()
                if now - last >= 15:
                    last = now
                    print(f"  {now - started:5.0f}s {run.documents} documents acknowledged "
                          f"({run.documents / (now - started):.1f}/s)", flush=True)

        chaos_thread = threading.Thread(target=chaos)
        chaos_thread.start()
        progress_thread = threading.Thread(target=progress)
        progress_thread.start()
        with concurrent.futures.ThreadPoolExecutor(options.payment_workers + len(basket_customers)) as pool:
            futures = [pool.submit(payment_worker, w, hosts, customers, run) for w in range(options.payment_workers)]
            futures += [pool.submit(basket_worker, w, hosts, customer, options.basket_size, run)
                        for w, customer in enumerate(basket_customers)]
            for future in futures:
                future.result()
        chaos_thread.join()
        run.stop.set()
        progress_thread.join()
        elapsed = time.time() - started
        for host in hosts:
            host.stop()

        # What the database holds.
        failures = list(run.errors)
        requests = {(row[0], row[1]): (row[2], int(row[3])) for row in psql(
            database, "SELECT c.name, r.request_id, r.document_id, r.journal_seq FROM requests r JOIN customers c ON c.id::text = r.customer")}
        journal = {int(row[0]): (row[1], row[2], row[3] or None) for row in psql(database, "SELECT seq, kind, document_id, basket_id FROM journal")}
        for key, (status, sequence) in run.acknowledged.items():
            if requests.get(key, (None, None))[1] != sequence:
                failures.append(f"acknowledged {key} ({status}, entry {sequence}) but the database has {requests.get(key)}")
            elif journal.get(sequence, (None,))[0] != status:
                failures.append(f"acknowledged {key} as {status} at entry {sequence}, the journal says {journal.get(sequence)}")
        for key, (basket, receipts) in run.baskets.items():
            if requests.get(key) != (basket, receipts[0][1]):
                failures.append(f"acknowledged basket {key} ({basket}, first entry {receipts[0][1]}) but the database has {requests.get(key)}")
            for status, sequence in receipts:
                if journal.get(sequence, (None, None, None))[0::2] != (status, basket):
                    failures.append(f"basket {key}: acknowledged {status} at entry {sequence}, the journal says {journal.get(sequence)}")
            in_journal = sum(1 for _, _, b in journal.values() if b == basket)
            if in_journal != len(receipts):
                failures.append(f"basket {key}: {len(receipts)} documents acknowledged, {in_journal} journaled")
        # Every entry is a request's: a single payment's entry is its request's, a basket's entries are its request's.
        baskets_requested = {document for document, _ in requests.values()}
        basket_ids = {basket for _, _, basket in journal.values() if basket}
        singles = {sequence for document, sequence in requests.values() if document not in basket_ids}
        for sequence, (kind, document, basket) in journal.items():
            if basket is None and sequence not in singles:
                failures.append(f"journal entry {sequence} ({kind}) answers no request")
            elif basket is not None and basket not in baskets_requested:
                failures.append(f"journal entry {sequence} of basket {basket}: no request names that basket")
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
            failures.append(f"no host answered during the PostgreSQL {'failover' if pair else 'outage'} with a message (expected 503 naming the server)")
        elif not any("PostgreSQL at 127.0.0.1:" in message for message in run.outage_messages):
            failures.append(f"the outage answers do not name the server: {run.outage_messages[:3]}")
        if run.unclear:
            failures.append(f"{len(run.unclear)} answers during the outage were not 503 database-unavailable: {run.unclear[:3]}")
        if run.resumed_after_outage == 0:
            failures.append("no host answered from the database (a payment acknowledged, or refused at review) after the PostgreSQL server came back")
        kills = sum(h.kills for h in hosts)
        planned = sum(1 for _, what in plan if what == "kill")
        if kills < planned:
            failures.append(f"only {kills} SIGKILLs happened ({planned} planned)")
        if pair:
            in_recovery = psql(database, "SELECT pg_is_in_recovery(), inet_server_port()")
            if in_recovery[0][0] != "f" or in_recovery[0][1] != open(os.path.join(pair, "standby", "port")).read().strip():
                failures.append(f"the ledger is not on the promoted standby after the failover: {in_recovery}")
        if run.documents < options.minimum:
            failures.append(f"only {run.documents} documents acknowledged in {elapsed:.0f} s; at least {options.minimum} expected")
        # The failover run is short and about durability: its races may not reach a balance's limit.
        if run.refused_funds + run.refused_at_review == 0 and not pair:
            failures.append("no payment was refused for insufficient funds: the overdraft races never reached a balance's limit")
        if run.duplicates == 0:
            failures.append("no payment was submitted twice (the duplicates on purpose did not happen)")
        if basket_customers and not run.baskets:
            failures.append(f"no signing basket was signed in {time.time() - started:.0f} s by {len(basket_customers)} basket "
                            f"customers: the basket path was not exercised (a shorter run needs a smaller --basket-size)")
        posted = sum(1 for kind, _, _ in journal.values() if kind == "posted")
        # Journaled without the client knowing: an attempt whose answer was lost (a kill, the outage) did commit, and
        # its retry was refused at review (the first attempt had spent the funds) or cut short by the end of the run.
        unanswered = sum(1 for key in requests if key not in run.acknowledged and key not in run.baskets)
        in_baskets = sum(len(receipts) for _, receipts in run.baskets.values())
        print(f"concurrent hosts{' (failover)' if pair else ''}: {run.documents} documents acknowledged in {elapsed:.0f} s through 3 hosts "
              f"({run.documents / elapsed:.1f}/s): {len(run.acknowledged)} single payments (passkeys) and {in_baskets} in "
              f"{len(run.baskets)} signing baskets (TOTP); journal {len(journal)} entries, {posted} posted; "
              f"{unanswered} requests journaled whose answer the client never got")
        print(f"  overdraft races: {run.race_posted} payments from the current accounts posted, {run.refused_funds} journaled "
              f"as refused for insufficient funds, {run.refused_at_review} refused at review; "
              f"{run.duplicates} duplicate submissions answered with the first outcome; {run.unknown} answers lost to "
              f"kills and the outage and retried; {kills} SIGKILLs; {len(run.outage_messages)} outage answers "
              f"(HTTP status: {dict(run.outage_statuses)}), "
              f"{run.resumed_after_outage} answered from the database after the outage")
        for event in events:
            print("  " + event)
        if run.outage_messages:
            print("  an outage answer: " + run.outage_messages[0][:300])
        print(f"  the whole test (set-up, load, checks, verify): {time.time() - begun:.0f} s")
        if failures:
            print("FAILED:")
            for failure in failures[:30]:
                print("  " + with_causes(failure, hosts))
            return 1
        print("concurrent hosts: every check passed")
        return 0
    finally:
        run.stop.set()
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
