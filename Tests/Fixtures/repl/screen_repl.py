#!/usr/bin/env python3
"""Issue #11 as a customer meets it: the REPL in a pseudo-terminal, its output rendered by a terminal emulator (pyte),
assertions on the rendered screen — menus chosen by list number, account numbers that never shift, a refused
payment found before any code is asked for, a wrong code then the right one, a masked card number, no escape junk
in prompts, history without codes or card numbers.

Usage: screen_repl.py BINARY PLUGINS DATA CLOCK. Exit 0 and "ok" when every step saw what it expected."""
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from screen import Session  # noqa: E402

binary, plugins, data, clock = sys.argv[1:5]
# Colours on (no NO_COLOR): a prompt must still render clean under libedit.
env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
env.update(TERM="xterm", RBS_CLOCK=clock, LANG="C.UTF-8")
for name in ("LC_ALL", "LC_MESSAGES"):
    env.pop(name, None)
args = ["--dev", "--no-watch", "--plugins", plugins, "--data", data]


def code(ahead=0, folder=data):
    return subprocess.check_output([binary, "keys", "code", "--ahead", str(ahead), "--data", folder], env=env,
                                   text=True).strip()


subprocess.check_call([binary, "keys", "init", "--name", "pty", "--data", data], env=env, stdout=subprocess.DEVNULL)
s = Session(binary, args, env)
s.wait("start", r"^rbs> $")

# 1. pay.pp.tax: "2" is the second item of the menu (value 1), not the option whose value is 2.
s.line("run pay.pp.tax")
s.wait("account picker", r"Debit account")
s.line("1")
menu = s.wait("type menu", r"^\s+2\) Tax payment$")
s.wait("type prompt", r"^Payment type \(1–3 or a title\)> ", after=menu)
s.line("2")
s.wait("tax fields appear", r"^\s+\+ Payment basis \(106\)$", after=menu)
mark = s.count()
s.line("back")
s.wait("back at the type, showing the title", r"^Payment type \(1–3 or a title\) \[Tax payment\]> ", after=mark - 1)
s.line("cancel")
s.wait("cancelled", r"cancelled: nothing was signed or posted")

# 2. transfer.own: the blocked account is offered by neither picker (the core takes no posting on it) and keeps its
# number 3: typed anyway, it is refused on the field, and no other account takes its number.
mark = s.count()
s.line("run transfer.own")
s.wait("from prompt", r"^Debit account", after=mark)
rows = [line.split()[0] for line in s.lines()[mark:] if line.strip()[:1].isdigit() and "40817" in line]
s.expect("from list: 1, 2, 4 (no blocked account)", rows == ["1", "2", "4"])
s.expect("no account marked blocked", not any("blocked" in line or "заблокирован" in line for line in s.lines()[mark:]))
mark = s.count()
s.line("1")
s.wait("to prompt", r"^Credit account", after=mark)
rows = [line.split()[0] for line in s.lines()[mark:] if line.strip()[:1].isdigit() and "40817" in line]
s.expect("to list keeps the numbers: 2, 4 (no blocked account)", rows == ["2", "4"])
s.line("3")
s.wait("refused on the field", r"account 3 \(40817810038000000003\) is blocked and cannot be chosen here", after=mark)
s.expect("no code asked for", not any("One-time code" in line for line in s.lines()[mark:]))
s.line("cancel")
s.wait("cancelled", r"cancelled: nothing was signed or posted", after=mark)

# 3. Quick payment of 999 999 999: refused before any code; then a valid amount, a wrong code, the right code.
mark = s.count()
s.line("run pay.pp.quick")
s.wait("picker", r"Debit account", after=mark)
s.line("1")
s.line("ООО Ромашка")
s.line("7707083893")
s.line("")
s.line("40702810938000000001")
s.wait("BIC prompt", r"^BIC ", after=mark)
s.line("044525225")
s.wait("bank name", r"ПАО Сбербанк", after=mark)
s.wait("purpose prompt", r"^Purpose of payment", after=mark)
s.expect("the bank's name is said once", sum("ПАО Сбербанк" in line for line in s.lines()[mark:]) == 1)
s.line("оплата по счёту 7")
s.line("999 999 999")
s.wait("button", r"^\[Pay\] Enter submits> ", after=mark)
s.line("")
s.wait("refused before signing", r"insufficient funds on 40817810438000000001", after=mark)
s.expect("no code asked for", not any("One-time code" in line for line in s.lines()[mark:]))
s.line("back")
s.wait("amount again", r"^Amount, ₽ \(amount, RUB\) \[999,999,999\.00\]> ", after=mark)
s.line("1 000,50")
s.line("")
review = s.wait("review", r"Payments › Quick payment › Sign", after=mark)
s.wait("code prompt", r"^One-time code", after=review)
s.expect_block("the review, exactly", review + 1, "  Document: ", [
    "  Amount: 1,000.50 RUB",
    "  Payee: ООО Ромашка",
    "  Payee's INN: 7707083893",
    "  Payee's account: 40702810938000000001",
    "  Bank: ПАО Сбербанк, BIC 044525225",
    "  From account: 40817810438000000001",
    "  Purpose: Оплата по счёту 7",
])
right = code()
wrong = "%06d" % ((int(right) + 1) % 1000000)
s.line(wrong)
s.wait("wrong code said", r"the one-time code is wrong.*4 attempts left", after=review)
after_wrong = s.count() - 1
s.wait("asked again", r"^One-time code", after=after_wrong)
s.line(right)
s.wait("posted", r"posted — journal entry 1", after=review)
s.wait("prompt", r"^rbs> $", after=review)

# 4. card.block: the card number is masked in the review.
mark = s.count()
s.line("run card.block")
s.wait("card prompt", r"^Card number", after=mark)
s.line("4111111111111111")
s.line("1")
s.line("да")
s.line("")
review = s.wait("review", r"Sign$", after=mark)
s.wait("code prompt", r"^One-time code", after=review)
s.expect("PAN masked in the review", not any("4111111111111111" in line for line in s.lines()[review:]))
# First six and last four at most (PCI DSS 3.4), as the plugin signs it; the reason as its title, not "lost".
s.expect_block("the card's review, exactly", review + 1, "  Document: ", [
    "  Card: 4111 11** **** 1111",
    "  Last digits of the card: 1111",
    "  Reason for blocking: Lost",
    "  Action: block the card",
])
s.line("cancel")
s.line("cancel")
s.wait("cancelled", r"cancelled: nothing was signed or posted", after=mark)
s.line("verify")
s.wait("one entry", r"^ok 1 entry$", after=mark)

# 5. help in a terminal narrower than its table: each command's usage on a line of its own, whole, and what it does
# under it, indented and broken between words — not a table the terminal breaks wherever its width ends.
mark = s.count()
s.line("help")
start = s.wait("help asked", r"^rbs> help$", after=mark - 1)
end = s.wait("help's last line", r"^Inside a form: ", after=start)
shown = s.lines()[start + 1:end]
usage = "journal [N | show N | receipt N] [--operation OP] [--account A] [--from DATE] [--to DATE] [--status S]"
s.expect("the journal's usage whole on its line", usage in shown)
under = shown[shown.index(usage) + 1:]
s.expect("what it does under it, indented", under[0] == "    list the journal's entries (filtered), show one in full, "
         "or write a posted entry's receipt (--format pdf|html|text|qr --output FILE)")
s.expect("no rule or header line the screen would break", not any(line.startswith(("──", "COMMAND")) for line in shown))
s.expect("the first command and what it does", shown[:2] == ["list", "    list the operations, numbered"])

# 6. The screen never showed escape junk, and every prompt was drawn without escape bytes.
s.expect("no escape fragments on screen", not any(frag in s.text() for frag in ["[2m", "[0m", "[1m", "[33m", "\x1b"]))
s.line("quit")
s.pump(0.5)

history = os.path.join(data, "history")
mode = stat.S_IMODE(os.stat(history).st_mode)
s.expect(f"history is 0600 (is {oct(mode)})", mode == 0o600)
text = open(history, encoding="utf-8").read()
s.expect("no card number in history", "4111111111111111" not in text)
s.expect("no one-time code in history", right not in text and wrong not in text)
if os.environ.get("SCREEN_DUMP"):
    print(s.text())

# 6. The same host in Russian (LANG=ru_RU.UTF-8): prompts' hints, the review's exact lines, a wrong code, leaving.
NBSP = "\u00a0"
ru = Session(binary, args, dict(env, LANG="ru_RU.UTF-8"))
ru.wait("start", r"^rbs> $")
ru.line("run transfer.own")
ru.wait("form keys in Russian", r"^Enter — оставить значение · back — назад · \? — справка · cancel — выйти$")
ru.wait("account table in Russian", r"^\s+№\s+СЧЁТ\s+ОСТАТОК\s+НАЗВАНИЕ$")
ru.wait("account prompt", r"^Списать со счёта \(№ или номер счёта\)> ")
ru.line("1")
ru.wait("to prompt", r"^Зачислить на счёт \(№ или номер счёта\)> ")
ru.line("2")
ru.wait("amount prompt", r"^Сумма \(сумма, RUB\)> ")
ru.line("1,500")
ru.wait("ambiguous amount in Russian",
        r"ошибка: Сумма: 1,500 — неоднозначно: это 1500 \(разделитель разрядов\) или 1,5 \(десятичный разделитель\)")
ru.line("12 345,6")
ru.wait("button", r"^\[Перевести\] Enter — отправить> ")
mark = ru.count()
ru.line("")
review = ru.wait("review", r"^Переводы › Перевод между своими счетами › Подпись$", after=mark)
ru.wait("code prompt in Russian", r"^Одноразовый код \(6 цифр, cancel — вернуться к форме\)> ", after=review)
ru.expect_block("the Russian review, exactly", review + 1, "  Документ: ", [
    f"  Сумма: 12{NBSP}345,60 RUB",
    "  Счёт получателя: 40817810738000000002",
    "  Счёт списания: 40817810438000000001",
    "  Назначение платежа: Перевод между своими счетами",
])
right = code()
ru.line("%06d" % ((int(right) + 1) % 1000000))
ru.wait("wrong code in Russian", r"ошибка: одноразовый код неверен; .*осталось попыток до блокировки подписи на 5 минут: \d", after=review)
ru.line("cancel")
ru.wait("back to the form", r"Подписание отменено: возврат к форме, значения сохранены\.", after=review)
ru.line("cancel")
ru.wait("cancelled", r"^отменено: ничего не подписано и не отправлено$", after=review)

# 7. In Russian still: the payment signed, the journal and the entry in full, the code, a template, its values shown
# as Russian writes them, the duplicate question, the basket, the operations: every word of the host's in Russian
# and every word of the example plugins' too (they give their texts in Russian and English, rbs.texts/1). A fresh data
# folder: entry 1.
ru.line("quit")
ru.pump(0.5)
fresh = tempfile.mkdtemp(prefix="rbs-screen-ru-")
subprocess.check_call([binary, "keys", "init", "--name", "pty", "--data", fresh], env=env, stdout=subprocess.DEVNULL)
ru = Session(binary, ["--dev", "--no-watch", "--plugins", plugins, "--data", fresh, "--lang", "ru"], env)
ru.wait("start", r"^rbs> $")
mark = ru.count()
ru.line("run transfer.own fromAccount=1 toAccount=2")
ru.wait("prefilled account", r"^Списать со счёта \(№ или номер счёта\) \[40817810438000000001\]> ", after=mark)
ru.line("")
ru.wait("prefilled destination", r"^Зачислить на счёт \(№ или номер счёта\) \[40817810738000000002\]> ", after=mark)
ru.line("")
ru.wait("amount prompt", r"^Сумма \(сумма, RUB\)> ", after=mark)
ru.line("12 345,6")
ru.wait("button", r"^\[Перевести\] Enter — отправить> ", after=mark)
ru.line("")
ru.wait("code prompt", r"^Одноразовый код", after=mark)
ru.line(code(folder=fresh))
ru.wait("posted in Russian", r"^проведено — запись журнала 1$", after=mark)
mark = ru.count()
ru.line("journal")
ru.wait("journal headers in Russian", r"^№\s+ВРЕМЯ\s+СТАТУС\s+ОПЕРАЦИЯ\s+СУММА\s+СПИСАНИЕ → ЗАЧИСЛЕНИЕ\s+ПОДПИСЬ\s+ПРИМЕЧАНИЕ$", after=mark)
ru.wait("journal row in Russian", f"^1\\s+\\d\\d\\.\\d\\d\\.\\d{{4}} \\d\\d:\\d\\d:\\d\\d UTC\\s+проведено\\s+transfer\\.own\\s+12{NBSP}345,60 RUB\\s+.*TOTP \\(без привязки\\)", after=mark)
mark = ru.count()
ru.line("journal show 1")
start = ru.wait("entry title", r"^Запись журнала 1$", after=mark)
ru.wait("payer", r"^  Плательщик:\s+pty$", after=start)
ru.wait("amount", f"^  Сумма:\\s+12{NBSP}345,60 RUB$", after=start)
ru.wait("status", r"^  Статус:\s+проведено$", after=start)
ru.wait("balance after", f"^  Остаток после:\\s+137{NBSP}654,40 RUB$", after=start)
mark = ru.count()
ru.line("plugins")
ru.wait("plugins headers in Russian", r"^ФАЙЛ\s+ИДЕНТИФИКАТОР\s+ВЕРСИЯ\s+ABI\s+СТАТУС$", after=mark)
ru.wait("a plugin's state in Russian", r"transfer-own\.so\s+ru\.example\.transfers\s+1\.0\.0\s+1\.6\.0\s+(в списке|загружен)$", after=mark)
mark = ru.count()
ru.line("keys code")
ru.wait("the current code", r"^\d{6}$", after=mark)
mark = ru.count()
ru.line("template save аренда")
ru.wait("template saved in Russian", r"^шаблон аренда сохранён: transfer\.own, значений: 3 — run @аренда заполнит их$", after=mark)
mark = ru.count()
ru.line("run @аренда")
ru.line("")
ru.line("")
ru.wait("current amount as Russian writes it", f"^Сумма \\(сумма, RUB\\) \\[12{NBSP}345,60\\]> ", after=mark)
ru.line("")
ru.wait("button", r"^\[Перевести\] Enter — отправить> ", after=mark)
ru.line("")
ru.wait("duplicate warning in Russian", r"Внимание: этот платёж повторяет запись журнала 1, проведённую ", after=mark)
ru.wait("duplicate question in Russian", r"^Подписать ещё раз\? \(да/нет\)> ", after=mark)
ru.line("нет")
ru.line("cancel")
ru.wait("cancelled", r"^отменено: ничего не подписано и не отправлено$", after=mark)
mark = ru.count()
ru.line("basket add")
ru.wait("duplicate question again", r"^Подписать ещё раз\? \(да/нет\)> ", after=mark)
ru.line("да")
ru.wait("added", r"^добавлено в пакет как документ 1", after=mark)
ru.line("basket")
ru.wait("basket headers in Russian", r"^№\s+ОПЕРАЦИЯ\s+СУММА\s+ПОЛУЧАТЕЛЬ\s+СЧЁТ ПОЛУЧАТЕЛЯ$", after=mark)
mark = ru.count()
ru.line("list")
ru.wait("list headers in Russian", r"^№\s+ОПЕРАЦИЯ\s+НАЗВАНИЕ\s+РАЗДЕЛ\s+ПЛАГИН$", after=mark)
ru.expect("no English word of the host's under Russian",
          not any(word in ru.text() for word in [
              "Amount", "Enter submits", "error:", "cancelled", "try again", "(amount", "Warning", "Sign it again", "saved",
              "journal entry", "Journal entry", "Status", "Payer", "Recorded", "posted", "TIME", "STATUS", "OPERATION",
              "TITLE", "PAYEE", "SIGNED WITH", "not bound", "[no]", "(blocked)", "заблокирован) (заблокирован",
              "Transfers › Transfer between own accounts › Sign", "Transfer between own accounts", "Quick payment",
              "Budget payment", "Block a card", "Transfers", "Payments"]))
ru.line("quit")
ru.pump(0.5)
print("ok")
