#!/usr/bin/env python3
"""Signs in the real rbs-host REPL with an OCRA key, as a person would: reads the challenge off the review, gets the
response from the authenticator (`keys respond`), mistypes once, then answers; checks the journal names OCRA.

Usage: drive_repl_ocra.py BINARY PLUGINS DATA CLOCK
Exit status 0 when every step saw what it expected; otherwise prints the step and the screen and exits 1.
"""
import os
import re
import subprocess
import sys

import pexpect

binary, plugins, data, clock = sys.argv[1:5]
env = dict(os.environ, TERM="xterm", NO_COLOR="1", RBS_CLOCK=clock, LANG="C.UTF-8")
args = ["--dev", "--no-watch", "--plugins", plugins, "--data", data]


def step(child, name, pattern):
    try:
        child.expect(pattern)
    except (pexpect.TIMEOUT, pexpect.EOF):
        print(f"step '{name}': did not see {pattern!r}\n--- screen ---\n{child.before}")
        sys.exit(1)


def respond(challenge):
    return subprocess.check_output([binary, "keys", "respond", challenge, "--data", data], env=env, text=True).strip()


subprocess.check_call([binary, "keys", "init", "--name", "pty", "--method", "ocra", "--data", data], env=env,
                      stdout=subprocess.DEVNULL)

child = pexpect.spawn(binary, args, env=env, encoding="utf-8", timeout=15, dimensions=(50, 200))
child.expect_exact("rbs> ")
child.sendline("keys")
step(child, "keys shows the method", r"Method:\s+OCRA challenge–response — bound to this document's amount and payee")
child.expect_exact("rbs> ")
child.sendline("run transfer.own")
step(child, "from", r"Debit account")
child.sendline("1")
step(child, "to", r"Credit account")
child.sendline("2")  # account numbers stay the same for the whole run: 2 is 40817810738000000002
step(child, "amount", r"Amount")
child.sendline("250")
step(child, "button", r"\[Transfer\]")
child.sendline("")
step(child, "sign presented modally", r"Transfers › Transfer between own accounts › Sign")
step(child, "amount prominent", r"Amount: 250\.00 RUB")
step(child, "payee account", r"Payee.s account: 40817810738000000002")
step(child, "challenge on the review", r"Challenge: (\d{4} \d{4} \d{4})")
challenge = child.match.group(1)
step(child, "method on the review", r"Signed with: OCRA challenge–response")
step(child, "prompt names the same challenge", re.escape(f"Response to challenge {challenge}"))
right = respond(challenge)
wrong = "%08d" % ((int(right) + 1) % 100000000)
child.sendline(wrong)
step(child, "a wrong response is refused without saying which element", r"does not answer this document's challenge")
step(child, "four attempts left", r"4\s+attempts left")
step(child, "asked again for the same challenge", re.escape(f"Response to challenge {challenge}"))
child.sendline(right)
step(child, "posted", r"posted — journal entry 1")
child.expect_exact("rbs> ")
child.sendline("journal")
step(child, "journal names OCRA and its challenge", re.escape(f"OCRA {challenge}"))
child.expect_exact("rbs> ")
child.sendline("verify")
step(child, "verify", r"ok 1 entry")
child.expect_exact("rbs> ")
child.sendline("quit")
child.expect(pexpect.EOF)
print("ok")
