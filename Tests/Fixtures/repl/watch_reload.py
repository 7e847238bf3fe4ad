#!/usr/bin/env python3
"""Starts the REPL with --watch over a folder, renames a new build of a plugin into it, and checks the one-line
notice: plugin, old → new version, milliseconds. Usage: watch_reload.py BINARY FOLDER DATA NEW_BUILD"""
import os
import sys

import pexpect

binary, folder, data, new_build = sys.argv[1:5]
env = dict(os.environ, TERM="xterm", NO_COLOR="1", LANG="C.UTF-8")
child = pexpect.spawn(binary, ["--dev", "--watch", "--plugins", folder, "--data", data], env=env, encoding="utf-8",
                      timeout=15)
child.expect_exact("rbs> ")
os.rename(new_build, os.path.join(folder, "versioned.so"))
try:
    child.expect(r"reloaded test\.versioned 1\.0\.0 → 1\.1\.0 in [0-9.]+ ms")
except (pexpect.TIMEOUT, pexpect.EOF):
    print(f"no reload notice\n--- screen ---\n{child.before}")
    sys.exit(1)
child.sendline("list")
child.expect(r"Versioned 1\.1\.0")
child.sendline("quit")
child.expect(pexpect.EOF)
print("ok")
