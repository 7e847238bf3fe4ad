#!/usr/bin/env python3
"""Signing baskets (issues #18, #21) as a customer meets them: the REPL in a pseudo-terminal rendered by pyte — two
payments put in the basket, the basket listed with its total, the review of both documents (amount and payee of
each, then the total) before one code, a wrong code then the right one, both posted, journal show naming the basket,
verify.

Usage: screen_basket.py BINARY PLUGINS DATA CLOCK. Exit 0 and "ok" when every step saw what it expected."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from screen import Session  # noqa: E402

binary, plugins, data, clock = sys.argv[1:5]
env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
env.update(TERM="xterm", RBS_CLOCK=clock, LANG="C.UTF-8")
for name in ("LC_ALL", "LC_MESSAGES"):
    env.pop(name, None)
args = ["--dev", "--no-watch", "--plugins", plugins, "--data", data]


def code():
    return subprocess.check_output([binary, "keys", "code", "--data", data], env=env, text=True).strip()


def add(s, line, name):
    """Runs `basket add …` with every value given on the line, pressing Enter through the prefilled form."""
    mark = s.count()
    s.line(line)
    for _ in range(20):
        s.pump(0.2)
        if any("added to the basket" in text for text in s.lines()[mark:]):
            break
        s.line("")
    return s.wait(name, r"^added to the basket as document \d", after=mark)


subprocess.check_call([binary, "keys", "init", "--name", "pty", "--data", data], env=env, stdout=subprocess.DEVNULL)
s = Session(binary, args, env)
s.wait("start", r"^rbs> $")

s.line("basket")
s.wait("empty basket", r"^the basket is empty: add the documents to sign together first \(basket add OP")

at = add(s, "basket add pay.pp.quick srcAccount=1 'destName=ООО Ромашка' destInn=7707083893 destAccount=40702810938000000001 "
            "destBic=044525225 'destDesc=оплата по счёту 7' 'amount=1 000,50'", "first added")
s.wait("first is document 1", r"^added to the basket as document 1 \(1 in the basket", after=at)
s.expect("no code asked while collecting", not any("One-time code" in line for line in s.lines()))
at = add(s, "basket add pay.pp.quick srcAccount=1 'destName=ООО Лютик' destInn=7707083893 destAccount=40702810638000000123 "
            "destBic=044525225 'destDesc=аренда за май' amount=500", "second added")
s.wait("second is document 2", r"^added to the basket as document 2 \(2 in the basket", after=at)

mark = s.count()
s.line("basket")
header = s.wait("basket table", r"^#\s+OPERATION\s+AMOUNT\s+PAYEE\s+PAYEE'S ACCOUNT$", after=mark)
rows = [re.sub(r"\s{2,}", " | ", line.strip()) for line in s.lines()[header + 2:header + 5]]
s.expect("the basket's rows and total: " + repr(rows), rows == [
    "1 | pay.pp.quick | 1,000.50 RUB | ООО Ромашка | 40702810938000000001",
    "2 | pay.pp.quick | 500.00 RUB | ООО Лютик | 40702810638000000123",
    "Total of 2 documents: 1,500.50 RUB",
])

mark = s.count()
s.line("basket remove 3")
s.wait("no document 3", r"there is no document 3 in the basket: it holds 2", after=mark)

mark = s.count()
s.line("basket sign")
review = s.wait("breadcrumb", r"^Basket › Sign$", after=mark)
s.wait("code prompt", r"^One-time code", after=review)
s.expect_block("the basket's review, exactly", review + 1, "  Basket: ", [
    "2 documents signed together with one code:",
    "  1. pay.pp.quick",
    "     Amount: 1,000.50 RUB",
    "     Payee: ООО Ромашка",
    "     Payee's INN: 7707083893",
    "     Payee's account: 40702810938000000001",
    "     Bank: ПАО Сбербанк, BIC 044525225",
    "     From account: 40817810438000000001",
    "     Purpose: Оплата по счёту 7",
    "  2. pay.pp.quick",
    "     Amount: 500.00 RUB",
    "     Payee: ООО Лютик",
    "     Payee's INN: 7707083893",
    "     Payee's account: 40702810638000000123",
    "     Bank: ПАО Сбербанк, BIC 044525225",
    "     From account: 40817810438000000001",
    "     Purpose: Аренда за май",
    "  Total of 2 documents: 1,500.50 RUB",
])
basket_line = s.wait("basket id", r"^  Basket: [0-9a-f]{64}$", after=review)
basket_id = s.lines()[basket_line].split()[-1]
s.wait("TOTP labelled as not bound", r"^  Signed with: TOTP.*NOT bound to the transaction", after=review)

right = code()
wrong = "%06d" % ((int(right) + 1) % 1000000)
s.line(wrong)
s.wait("wrong code said", r"the one-time code is wrong.*4 attempts left", after=review)
after_wrong = s.count() - 1
s.wait("asked again", r"^One-time code", after=after_wrong)
s.line(right)
done = s.wait("basket posted", r"^Basket %s…: 2 of 2 posted$" % basket_id[:16], after=after_wrong)
s.wait("document 1 posted", r"^  1\. posted — journal entry 1$", after=done)
s.wait("document 2 posted", r"^  2\. posted — journal entry 2$", after=done)
s.wait("prompt", r"^rbs> $", after=done)

mark = s.count()
s.line("basket")
s.wait("basket empty after signing", r"^the basket is empty", after=mark)

mark = s.count()
s.line("journal show 2")
s.wait("journal names the basket", r"^\s*Basket:?\s+%s$" % basket_id, after=mark)
s.wait("place in the basket", r"Document in basket:?\s+2 of 2$", after=mark)
s.wait("the basket's entries", r"Basket's journal entries:?\s+1, 2$", after=mark)

mark = s.count()
s.line("verify")
s.wait("verified", r"^ok 2 entries$", after=mark)
s.expect("no escape fragments on screen", not any(frag in s.text() for frag in ["[2m", "[0m", "[1m", "[33m", "\x1b"]))
s.line("quit")
s.pump(0.5)
if os.environ.get("SCREEN_DUMP"):
    print(s.text())
print("ok")
