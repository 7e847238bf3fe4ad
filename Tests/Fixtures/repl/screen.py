"""A pseudo-terminal session rendered through a terminal emulator (pyte): tests read the screen a person sees."""
import re
import sys
import time

import pexpect
import pyte

COLUMNS, ROWS = 160, 60


class Session:
    def __init__(self, binary, args, env):
        self.child = pexpect.spawn(binary, args, env=env, encoding=None, timeout=15, dimensions=(ROWS, COLUMNS))
        self.screen = pyte.HistoryScreen(COLUMNS, ROWS, history=5000)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = b""

    def pump(self, wait=0.05):
        try:
            while True:
                data = self.child.read_nonblocking(65536, timeout=wait)
                self.raw += data
                self.stream.feed(data)
                wait = 0.05
        except pexpect.TIMEOUT:
            pass
        except pexpect.EOF:
            pass

    def lines(self):
        """Every line scrolled off the top, then the visible screen, right-trimmed."""
        history = ["".join(char.data for char in line.values()) if isinstance(line, dict)
                   else "".join(line[x].data for x in range(COLUMNS)) for line in self.screen.history.top]
        return [line.rstrip() for line in history + self.screen.display]

    def text(self):
        return "\n".join(self.lines())

    def wait(self, name, pattern, timeout=30, after=0):
        """Waits until `pattern` (a regex) is on the screen, counting only lines from index `after`."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.pump()
            lines = self.lines()[after:]
            for index, line in enumerate(lines):
                if re.search(pattern, line) or re.search(pattern, line + " "):  # right-trimmed; a prompt ends in a space
                    return after + index
        self.fail(f"step '{name}': did not see {pattern!r}")

    def cursor_line(self):
        self.pump()
        return self.screen.display[self.screen.cursor.y].rstrip()

    def send(self, text):
        self.child.send(text.encode())
        time.sleep(0.15)

    def line(self, text):
        self.send(text + "\r")

    def expect(self, name, condition):
        if not condition:
            self.fail(f"step '{name}' failed")

    def expect_block(self, name, start, end_prefix, expected):
        """The lines from index `start` up to the first that starts with `end_prefix` are exactly `expected`."""
        lines = self.lines()[start:]
        end = next((i for i, line in enumerate(lines) if line.startswith(end_prefix)), None)
        if end is None:
            self.fail(f"step '{name}': no line starting with {end_prefix!r}")
        if lines[:end] != expected:
            self.fail(f"step '{name}': the lines were\n" + "\n".join(lines[:end]) + "\nnot\n" + "\n".join(expected))

    def fail(self, message):
        print(message + "\n--- screen ---\n" + self.text() + "\n--- raw tail ---\n" + repr(self.raw[-3000:]))
        sys.exit(1)

    def count(self):
        """The number of lines written so far (up to the last non-blank one)."""
        self.pump()
        lines = self.lines()
        while lines and not lines[-1]:
            lines.pop()
        return len(lines)
