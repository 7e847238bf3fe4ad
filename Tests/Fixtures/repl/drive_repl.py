#!/usr/bin/env python3
"""Drives the real rbs-host REPL in a pseudo-terminal, as a person would, and checks what the screen shows.

Usage: drive_repl.py BINARY PLUGINS DATA CLOCK
Exit status 0 when every step saw what it expected; otherwise prints the step and the screen and exits 1.
"""
import os
import subprocess
import sys
import time

import pexpect

binary, plugins, data, clock = sys.argv[1:5]
env = dict(os.environ, TERM="xterm", NO_COLOR="1", RBS_CLOCK=clock, LANG="C.UTF-8")
args = ["--dev", "--no-watch", "--plugins", plugins, "--data", data]


def code(ahead=0):
    return subprocess.check_output([binary, "keys", "code", "--ahead", str(ahead), "--data", data], env=env,
                                   text=True).strip()


def start():
    child = pexpect.spawn(binary, args, env=env, encoding="utf-8", timeout=30, dimensions=(50, 200))
    child.expect_exact("rbs> ")
    return child


def step(child, name, pattern):
    try:
        child.expect(pattern)
    except (pexpect.TIMEOUT, pexpect.EOF):
        print(f"step '{name}': did not see {pattern!r}\n--- screen ---\n{child.before}")
        sys.exit(1)


subprocess.check_call([binary, "keys", "init", "--name", "pty", "--data", data], env=env, stdout=subprocess.DEVNULL)

child = start()
child.sendline("list")
step(child, "list", r"pay\.pp\.quick")
child.expect_exact("rbs> ")

# Completion: "ru⇥" becomes "run ", "pay.pp.q⇥" becomes "pay.pp.quick " — only then does the form open.
# (a person types slower than a script: give libedit time to answer each Tab)
child.send("ru\t")
time.sleep(0.3)
child.send("pay.pp.q\t")
time.sleep(0.3)
child.sendline("")
step(child, "completed command opens the form (breadcrumb)", r"Payments › Quick payment")
step(child, "account picker embedded with balances", r"40817810438000000001\s+150[ 0-9.,]*")
step(child, "first prompt", r"Debit account")
child.sendline("1")
step(child, "destName", r"Payee's full name or organisation name")
child.sendline("ООО Ромашка")
step(child, "destInn", r"Payee's INN")
child.sendline("1234567890")
step(child, "bad INN explained", r"An INN has 10 digits")
step(child, "bad INN marked", r"⚠")
child.sendline("7707083893")
step(child, "good INN hides the note", r"− An INN has 10 digits")
step(child, "destKpp", r"Payee's KPP")
child.sendline("")
step(child, "destAccount", r"Payee's account")
child.sendline("40702810938000000001")
step(child, "destBic", r"BIC")
child.sendline("044525225")
step(child, "the BIC fills the bank's name", r"ПАО Сбербанк")
step(child, "destDesc", r"Purpose of payment")
child.sendline("оплата по счёту 7")
step(child, "amount", r"Amount")
child.sendline("1 000,50")
step(child, "button", r"\[Pay\]")
child.sendline("")
step(child, "sign presented modally", r"Payments › Quick payment › Sign")
step(child, "amount prominent, grouped", r"Amount: 1,000\.50 RUB")
step(child, "payee prominent", r"Payee: ООО Ромашка")
step(child, "code prompt", r"One-time code")
child.sendline(code())
step(child, "posted", r"posted — journal entry 1")
child.expect_exact("rbs> ")
child.sendline("journal")
step(child, "journal shows the entry", r"posted\s+pay\.pp\.quick\s+1,000\.50 RUB")
child.expect_exact("rbs> ")

# Ctrl-C inside a form returns to the top, not out of the host.
child.sendline("run transfer.own")
step(child, "transfer form", r"Debit account")
child.sendcontrol("c")
step(child, "cancelled", r"cancelled: nothing was signed or posted")
child.expect_exact("rbs> ")
child.sendline("verify")
step(child, "still running after Ctrl-C", r"ok 1 entry")
child.expect_exact("rbs> ")
child.sendcontrol("d")
child.expect(pexpect.EOF, timeout=120)  # generous: the whole suite runs beside this on two cores

# History is kept between runs: Up recalls the last command.
child = start()
child.send("\x1b[A")
step(child, "history recalls the last line", r"verify")
child.sendline("")
step(child, "recalled command runs", r"ok 1 entry")
child.sendline("quit")
child.expect(pexpect.EOF)
print("ok")
