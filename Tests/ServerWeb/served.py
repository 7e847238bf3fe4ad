"""A real `rbs-host serve` for the browser test and the API fuzzer: a fresh data folder, one customer, the example
plugins, a free loopback port; stopped with SIGTERM (a graceful shutdown that must exit 0)."""
import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST = os.environ.get("RBS_HOST_BINARY", os.path.join(ROOT, ".build", "debug", "rbs-host"))
PLUGINS = os.path.join(ROOT, "Plugins")


def totp(secret_base32, at=None):
    """RFC 6238: HMAC-SHA1, 30-second steps, 6 digits — what the customer's authenticator app shows."""
    padded = secret_base32 + "=" * (-len(secret_base32) % 8)
    key = base64.b32decode(padded)
    counter = int((time.time() if at is None else at) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return "%06d" % (value % 1_000_000)


class Served:
    def __init__(self, customer="alice", password="alice-password-1"):
        if not os.path.exists(HOST):
            raise SystemExit(f"{HOST} is missing: build the host first (make build)")
        self.customer, self.password = customer, password
        self.data = tempfile.mkdtemp(prefix="rbs-serve-")
        os.chmod(self.data, 0o700)
        added = subprocess.run([HOST, "customers", "add", customer, "--password-stdin", "--data", self.data],
                               input=password + "\n", capture_output=True, text=True, timeout=60)
        if added.returncode != 0:
            raise SystemExit(f"customers add failed: {added.stderr}")
        self.secret = re.search(r"secret=([A-Z2-7]+)", added.stdout).group(1)
        self.accounts = re.findall(r"\b(408\d{17})\b", added.stdout)
        # The customer's card (issue #29), on their first account: the cards screen blocks and unblocks it.
        issued = subprocess.run([HOST, "customers", "add-card", customer, "--number", "4111 1111 1111 1111", "--data", self.data],
                                capture_output=True, text=True, timeout=60)
        if issued.returncode != 0:
            raise SystemExit(f"customers add-card failed: {issued.stderr}")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        # What the browser opens: passkeys are bound to the server's origin, and browsers take `localhost` (never
        # an IP address) as a relying-party id — the server's default origin is http://localhost:PORT.
        self.web = f"http://localhost:{self.port}"
        self.log = open(os.path.join(self.data, "serve.log"), "w")
        self.process = subprocess.Popen(
            [HOST, "serve", "--dev", "--data", self.data, "--plugins", PLUGINS, "--listen", f"127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if self.process.poll() is not None or time.time() > deadline:
                raise SystemExit("rbs-host serve did not start:\n" + self.read_log())
            time.sleep(0.2)

    def code(self, at=None):
        return totp(self.secret, at)

    def token(self):
        request = urllib.request.Request(self.base + "/api/v1/session", method="POST",
                                         data=json.dumps({"customer": self.customer, "password": self.password}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)["token"]

    def read_log(self):
        self.log.flush()
        with open(os.path.join(self.data, "serve.log")) as log:
            return log.read()

    def stop(self):
        """SIGTERM: the server must shut down gracefully and exit 0."""
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise SystemExit("rbs-host serve did not stop within 60 s of SIGTERM:\n" + self.read_log())
        log = self.read_log()
        shutil.rmtree(self.data, ignore_errors=True)
        if status != 0:
            raise SystemExit(f"rbs-host serve exited {status} after SIGTERM:\n{log}")
        return log
