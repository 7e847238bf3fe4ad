#!/usr/bin/env python3
"""Starts the REPL with --watch over a folder, types part of a command, renames a new build of a plugin into the
folder, and checks the rendered screen (pyte): the one-line notice (plugin, old → new version, milliseconds) is
printed above, and the prompt with the typed text is drawn again under it, so the rest of the command still lands on
it. Usage: watch_reload.py BINARY FOLDER DATA NEW_BUILD"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from screen import Session  # noqa: E402

binary, folder, data, new_build = sys.argv[1:5]
env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
env.update(TERM="xterm", LANG="C.UTF-8")
s = Session(binary, ["--dev", "--watch", "--plugins", folder, "--data", data], env)
s.wait("start", r"^rbs> $")
s.send("li")
time.sleep(0.3)
os.rename(new_build, os.path.join(folder, "versioned.so"))
notice = s.wait("notice", r"reloaded test\.versioned 1\.0\.0 → 1\.1\.0 in [0-9.]+ ms")
s.expect("the notice is one clean line", s.lines()[notice].startswith("⟳ reloaded test.versioned"))
s.pump(0.3)
s.expect(f"prompt and typed text drawn again under the notice (cursor line {s.cursor_line()!r})",
         s.cursor_line() == "rbs> li")
s.expect("no escape junk", "[2m" not in s.text() and "[0m" not in s.text())
s.line("st")
s.wait("the completed command ran", r"Versioned\s+.*1\.1\.0|1\.1\.0.*Versioned", after=notice)
s.line("quit")
s.pump(0.5)
print("ok")
