"""The web client in a real browser (Debian's headless Chromium driven by selenium).

First the customer's paths in English at 1280 px: log in; the quick payment typed as a person would (the amount as
typed, "1,500" refused as ambiguous next to the field and left as typed, "1 500,50" read by the server); Enter in a
field moves on; a reload in the middle of the form resumes it; Back leaves the form and Forward returns to it; the
review with a "change" link back to a field; a wrong code, then the code typed with a space as the app shows it; the
receipt. Two more in the basket, signed with one code; a passkey on Chromium's virtual authenticator (a tampered
amount refused); the duplicate confirmed; the budget payment's fields 106–109; an empty form's error summary.

Then a walk of every screen (home, form, form with errors, review, receipt) in Russian and English at 1280 and
390 px: each screenshot written to docs/screenshots/ (SCREENSHOTS=DIR elsewhere), no horizontal scrolling
(`scrollWidth <= innerWidth`), axe-core (from axe-selenium-python) without a critical or serious violation, and on a
Russian page no English word of the host's (plugins' own texts are marked data-source=plugin and left out)."""
import base64
import os
import re
import subprocess
import sys
import time

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from served import Served

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message, flush=True)


def plain(text):
    """Text with the no-break spaces of grouped amounts as plain spaces, for comparing."""
    return text.replace("\u00a0", " ").replace("\u202f", " ")


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1100",
                     "--lang=en-US", "--disable-gpu", "--hide-scrollbars"]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-US,en"})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"), options=options)


LAST_STEP = [0]


def fresh_code(served):
    """A code of a time step after every one used so far (a step is accepted once), waiting for it if need be."""
    while int(time.time() // 30) + 1 <= LAST_STEP[0]:
        time.sleep(1)
    LAST_STEP[0] = int(time.time() // 30) + 1
    return served.code(LAST_STEP[0] * 30)


def active_id(driver):
    return driver.switch_to.active_element.get_attribute("id")


def type_quick(driver, wait, served, purpose, amount, open_it=True):
    """The quick payment, typed as a person would; the bank's name appears after the BIC."""
    if open_it:
        open_operation(driver, wait, "pay.pp.quick")
    wait.until(EC.visibility_of_element_located((By.ID, "atom-destName")))
    Select(driver.find_element(By.ID, "atom-srcAccount")).select_by_value(served.accounts[0])
    for atom, text in [("destName", "ООО Ромашка"), ("destInn", "1234567894"), ("destBic", "044525225")]:
        driver.find_element(By.ID, "atom-" + atom).send_keys(text)
    wait.until(EC.text_to_be_present_in_element((By.ID, "atom-destBicInfo"), "ПАО Сбербанк"))
    for atom, text in [("destAccount", "40702810638000000123"), ("destDesc", purpose), ("amount", amount)]:
        driver.find_element(By.ID, "atom-" + atom).send_keys(text)


def open_operation(driver, wait, operation):
    """From any screen: the operations (behind the Menu button on a phone), then the operation."""
    button = driver.find_element(By.CSS_SELECTOR, f"[data-operation='{operation}']")
    if not button.is_displayed():
        driver.find_element(By.ID, "menu-toggle").click()
        wait.until(EC.visibility_of(button))
    button.click()
    wait.until(EC.visibility_of_element_located((By.ID, "run")))


def to_review(driver, wait):
    driver.find_element(By.ID, "atom-amount").send_keys(Keys.TAB)
    time.sleep(0.8)
    driver.find_element(By.ID, "atom-btnSend").click()
    wait.until(EC.visibility_of_element_located((By.ID, "review")))


def fill_quick(driver, wait, served, amount):
    type_quick(driver, wait, served, "Оплата по счёту 8", amount)
    to_review(driver, wait)


def balance(driver, served):
    try:
        return plain(driver.find_element(By.CSS_SELECTOR, f"tr[data-account='{served.accounts[0]}'] td.num").text)
    except (StaleElementReferenceException, NoSuchElementException):
        return ""  # the table is being drawn again


def wait_balance(driver, wait, served, text):
    wait.until(lambda d: balance(d, served) == text)


def go_place(driver, wait, place):
    """From any screen: a place of the bank in the menu (behind the Menu button on a phone)."""
    link = driver.find_element(By.CSS_SELECTOR, f"a[data-place='{place}']")
    if not link.is_displayed():
        driver.find_element(By.ID, "menu-toggle").click()
        wait.until(EC.visibility_of(link))
    link.click()
    wait.until(EC.visibility_of_element_located((By.ID, place)))
    wait.until(lambda d: d.execute_script("return document.activeElement && document.activeElement.id") != "main")


def rows(driver, table):
    """The visible rows' texts of a table ([] while it is being drawn again)."""
    try:
        return [plain(row.text) for row in driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr") if row.is_displayed()]
    except StaleElementReferenceException:
        return []


# A PDF (the statement's, a receipt's) fetched as its download link would (the session's cookie), its bytes handed back in base64.
FETCH_PDF = """
const done = arguments[arguments.length - 1];
fetch(document.getElementById(arguments[0]).href, { credentials: "same-origin" }).then(async (answer) => {
  const bytes = new Uint8Array(await answer.arrayBuffer());
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  done({ status: answer.status, type: answer.headers.get("content-type"), disposition: answer.headers.get("content-disposition"),
         body: btoa(text) });
}).catch((error) => done({ error: String(error) }));
"""


def history_and_statement(driver, wait, served):
    """The history searched by payee and by amount, filtered by outcome, one entry's details; the statement of the
    account with its PDF downloaded and read back with pdftotext."""
    go_place(driver, wait, "history")
    check("#/history" in driver.current_url, f"the history has its own address: {driver.current_url}")
    # The list is drawn when the server's answer arrives (later on a loaded machine: the fuzzer and the parity
    # corpus run beside this walk); waited for, then checked, so a missing list still fails by name.
    try:
        wait.until(lambda d: len(rows(d, "history-list")) >= 3)
    except TimeoutException:
        pass
    everything = rows(driver, "history-list")
    check(len(everything) >= 3, f"the history lists the payments: {everything!r}")
    driver.find_element(By.ID, "history-q").send_keys("1 500,50" + Keys.ENTER)
    wait.until(lambda d: "q=1" in d.current_url)
    wait.until(lambda d: len(rows(d, "history-list")) == 1)
    found = rows(driver, "history-list")
    check("1,500.50 RUB" in found[0] and "ООО Ромашка" in found[0] and "Оплата по счёту 7" in found[0],
          f"the amount as typed finds the payment: {found!r}")
    # A search is an address: a reload shows the same search.
    driver.refresh()
    wait.until(lambda d: len(rows(d, "history-list")) == 1)
    check(driver.find_element(By.ID, "history-q").get_attribute("value") == "1 500,50", "a reloaded search keeps its words")
    query = driver.find_element(By.ID, "history-q")
    query.clear()
    Select(driver.find_element(By.ID, "history-status")).select_by_value("rejected")
    driver.find_element(By.CSS_SELECTOR, "#history-form button[type=submit]").click()
    wait.until(lambda d: "status=rejected" in d.current_url)
    wait.until(EC.text_to_be_present_in_element((By.ID, "history-found"), "Nothing found"))
    check(not driver.find_element(By.ID, "history-list").is_displayed(), "no rejected payment is listed")
    # A day that is not one: said next to its field in the page's words and marked; nothing was searched, so the
    # list does not say "Nothing found" (the server's problem names the query parameter, not the person's words).
    driver.find_element(By.ID, "history-from").send_keys("31.02.2026" + Keys.ENTER)
    wait.until(EC.text_to_be_present_in_element((By.ID, "history-error"), "is not a day"))
    check(driver.find_element(By.ID, "history-error").text == "“31.02.2026” is not a day: write DD.MM.YYYY, e.g. 25.11.2026.",
          f"a wrong day is said in the page's words: {driver.find_element(By.ID, 'history-error').text!r}")
    check(driver.find_element(By.ID, "history-from").get_attribute("aria-invalid") == "true", "the wrong day's field is marked")
    check(driver.find_element(By.ID, "history-found").text == "", "a search that did not run finds nothing, and says nothing")
    driver.find_element(By.ID, "history-from").clear()
    driver.back()
    driver.back()
    wait.until(lambda d: len(rows(d, "history-list")) == 1)
    driver.find_element(By.CSS_SELECTOR, "#history-list tbody tr a.details-link").click()
    wait.until(EC.visibility_of_element_located((By.ID, "entry")))
    details = plain(driver.find_element(By.ID, "entry-sections").text)
    check("ООО Ромашка" in details and "1,500.50 RUB" in details and "Оплата по счёту 7" in details,
          f"the entry's details show the payee, amount and purpose: {details!r}")
    check(re.search(r"#/history/\d+$", driver.current_url) is not None, f"an entry has its own address: {driver.current_url}")
    # The entry's receipt as a PDF, downloaded and read back.
    sequence = driver.current_url.rsplit("/", 1)[-1]
    receipt = read_pdf(served, driver.execute_async_script(FETCH_PDF, "entry-pdf"), "receipt.pdf")
    check(receipt and receipt[0] == f"Receipt for journal entry {sequence}", f"the receipt PDF's heading: {receipt[:2]!r}")
    check(any(line.startswith("Payee") and line.endswith("ООО Ромашка") for line in receipt), f"the receipt PDF names the payee: {receipt!r}")

    go_place(driver, wait, "statement")
    Select(driver.find_element(By.ID, "statement-account")).select_by_value(served.accounts[0])
    # A day typed as a person writes it (no mm/dd/yyyy picker): read on the server by the core's date parser.
    check(driver.find_element(By.ID, "statement-from").get_attribute("type") == "text", "the period's days are typed, not picked")
    driver.find_element(By.ID, "statement-from").send_keys("01.01.2020")
    driver.find_element(By.CSS_SELECTOR, "#statement-form button[type=submit]").click()
    wait.until(lambda d: "from=01.01.2020" in d.current_url)
    wait.until(EC.visibility_of_element_located((By.ID, "statement-result")))
    totals = plain(driver.find_element(By.ID, "statement-totals").text)
    check("Opening balance 150,000.00 RUB" in totals, f"the statement opens at the opening balance: {totals!r}")
    closing = balance_of(driver, served)
    lines = rows(driver, "statement-lines")
    check(any("ООО Ромашка" in line and "-1,500.50 RUB" in line for line in lines), f"the statement lists the payment: {lines!r}")
    answer = driver.execute_async_script(FETCH_PDF, "statement-pdf")
    pdf_lines = read_pdf(served, answer, "statement.pdf")
    check(pdf_lines and pdf_lines[0].startswith("Statement of account " + served.accounts[0]), f"the PDF's heading: {pdf_lines[:2]!r}")
    check("Opening balance: 150,000.00 RUB" in pdf_lines, f"the PDF has the opening balance: {pdf_lines!r}")
    check(f"Closing balance: {closing}" in pdf_lines, f"the PDF closes at the balance {closing}: {pdf_lines!r}")
    check(any(line.startswith("Counterparty") and "ООО Ромашка" in line for line in pdf_lines), "the PDF names the payee")
    go_home(driver, wait)


def templates_flow(driver, wait, served):
    """A template saved from a filled form, found in the templates, renamed, run (the form opens filled in) and
    signed; another saved from a receipt stays for the walk; one deleted."""
    type_quick(driver, wait, served, "Аренда за ноябрь", "700")
    driver.find_element(By.ID, "atom-amount").send_keys(Keys.TAB)
    time.sleep(0.6)
    name = driver.find_element(By.ID, "template-name-run")
    name.send_keys("my rent" + Keys.ENTER)
    wait.until(EC.text_to_be_present_in_element((By.ID, "template-name-run-error"), "cannot name a template"))
    check(name.get_attribute("aria-invalid") == "true" and active_id(driver) == "template-name-run", "a refused name is marked and focused")
    name.clear()
    name.send_keys("Rent_monthly" + Keys.ENTER)
    wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#run .template-save [role=status]"), "Template Rent_monthly saved"))
    driver.find_element(By.ID, "cancel").click()
    wait.until(EC.visibility_of_element_located((By.ID, "home")))

    go_place(driver, wait, "templates")
    check("#/templates" in driver.current_url, f"the templates have their own address: {driver.current_url}")
    items = [plain(item.text) for item in driver.find_elements(By.CSS_SELECTOR, "#templates-list > li")]
    check(len(items) == 1 and items[0].startswith("Rent_monthly") and "Quick payment" in items[0], f"the template is listed: {items!r}")
    driver.find_element(By.CSS_SELECTOR, "[data-template-rename='Rent_monthly']").click()
    field = driver.switch_to.active_element
    check(field.get_attribute("value") == "Rent_monthly", "the rename field has the focus and the old name")
    field.clear()
    field.send_keys("Аренда" + Keys.ENTER)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-template='Аренда']"))
    check(not driver.find_elements(By.CSS_SELECTOR, "[data-template='Rent_monthly']"), "the old name is gone")
    check("Rent_monthly is now Аренда" in driver.find_element(By.ID, "notice").text, "the rename is said")
    driver.find_element(By.CSS_SELECTOR, "[data-template-run='Аренда']").click()
    wait.until(EC.visibility_of_element_located((By.ID, "run")))
    wait.until(lambda d: d.find_element(By.ID, "atom-destName").get_attribute("value") == "ООО Ромашка")
    check(driver.find_element(By.ID, "atom-destDesc").get_attribute("value") == "Аренда за ноябрь", "the template's purpose is filled in")
    check(driver.find_element(By.ID, "atom-amount").get_attribute("value") in ("700", "700.00"), "the template's amount is filled in")
    to_review(driver, wait)
    if driver.find_element(By.ID, "code").is_displayed():
        driver.find_element(By.ID, "code").send_keys(fresh_code(served) + Keys.ENTER)
    else:
        driver.find_element(By.ID, "sign").click()  # the passkey registered earlier signs
    wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
    receipt = plain(driver.find_element(By.ID, "receipt-lines").text)
    check("posted" in receipt and "700.00 RUB" in receipt, f"the payment from the template is posted: {receipt!r}")
    # Saved again from the receipt (the form the entry was signed from), and kept for the walk's screenshots.
    driver.find_element(By.ID, "template-name-receipt").send_keys("Rent_again" + Keys.ENTER)
    wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, "#receipt .template-save [role=status]"), "Template Rent_again saved"))
    driver.find_element(By.ID, "done").click()
    go_place(driver, wait, "templates")
    driver.find_element(By.CSS_SELECTOR, "[data-template-delete='Аренда']").click()
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-template='Аренда']"))
    names = [item.get_attribute("data-template") for item in driver.find_elements(By.CSS_SELECTOR, "#templates-list > li")]
    check(names == ["Rent_again"], f"one template deleted, the other kept: {names!r}")
    # Repeat: the history's entry opens the same form again, filled in.
    go_place(driver, wait, "history")
    driver.find_element(By.ID, "history-q").send_keys("Аренда за ноябрь" + Keys.ENTER)
    wait.until(lambda d: "q=" in d.current_url and len(rows(d, "history-list")) == 1)
    driver.find_element(By.CSS_SELECTOR, "#history-list tbody tr a.details-link").click()
    wait.until(EC.visibility_of_element_located((By.ID, "entry-repeat")))
    driver.find_element(By.ID, "entry-repeat").click()
    wait.until(EC.visibility_of_element_located((By.ID, "run")))
    wait.until(lambda d: d.find_element(By.ID, "atom-destDesc").get_attribute("value") == "Аренда за ноябрь")
    driver.find_element(By.ID, "cancel").click()
    wait.until(EC.visibility_of_element_located((By.ID, "home")))


def read_pdf(served, answer, name):
    """A PDF fetched by FETCH_PDF, checked to be a download, as pdftotext reads its lines."""
    check(answer.get("status") == 200 and answer.get("type") == "application/pdf"
          and "attachment" in (answer.get("disposition") or ""), f"{name} is a download: {answer.get('status')} {answer.get('type')}")
    pdf = os.path.join(served.data, name)
    with open(pdf, "wb") as out:
        out.write(base64.b64decode(answer.get("body") or ""))
    text = plain(subprocess.run(["pdftotext", "-layout", pdf, "-"], capture_output=True, text=True, timeout=60).stdout)
    return [line.strip() for line in text.splitlines() if line.strip()]


def balance_of(driver, served):
    """The closing balance the statement shows."""
    for row in driver.find_elements(By.CSS_SELECTOR, "#statement-totals tr"):
        if row.text.startswith("Closing balance"):
            return plain(row.find_element(By.TAG_NAME, "td").text)
    return ""


def go_home(driver, wait):
    driver.find_element(By.CSS_SELECTOR, ".brand").click()
    wait.until(EC.visibility_of_element_located((By.ID, "home")))


# An assertion for the review on screen, then the amount changed and submitted again, then that assertion sent for
# the new document: what a tampering client (or a man in the browser) would do. Runs in the page, with its own
# functions (the same fetch, cookie and passkey as the client).
TAMPER = """
const done = arguments[arguments.length - 1];
(async () => {
  const run = state.run.id;
  const assertion = await assertPasskey(state.review.passkey);
  await api("PUT", "/runs/" + run + "/atoms/amount", { value: "9999.00" });
  const changed = await api("POST", "/runs/" + run + "/submit");
  try {
    await api("POST", "/runs/" + run + "/sign", { passkey: assertion });
    done({ posted: true, amount: changed.amount });
  } catch (error) {
    done({ posted: false, amount: changed.amount, problem: error.problem });
  }
})().catch((error) => done({ error: String(error) }));
"""


def first_payment(driver, wait, served):
    """The quick payment typed as a person would, with the mistakes people make, reloads and Back and Forward."""
    open_operation(driver, wait, "pay.pp.quick")
    check("#/run/" in driver.current_url, f"the form has its own address: {driver.current_url}")
    # Enter in a field moves to the next one; it does not submit the half-filled form.
    name = driver.find_element(By.ID, "atom-destName")
    name.send_keys("ООО Ромашка" + Keys.ENTER)
    check(active_id(driver) == "atom-destInn", f"Enter moves to the next field, not to the review: {active_id(driver)}")
    check(not driver.find_element(By.ID, "error-summary").is_displayed(), "Enter in the first field marks no field red")
    check(driver.find_element(By.ID, "run").is_displayed(), "Enter keeps the form on screen")
    name.clear()
    type_quick(driver, wait, served, "Оплата по счёту 7", "1,500", open_it=False)
    # The live check as the person types: a bad INN is marked before the submit.
    inn = driver.find_element(By.ID, "atom-destInn")
    inn.send_keys(Keys.BACKSPACE + "5")
    wait.until(lambda d: d.find_element(By.ID, "atom-destInn").get_attribute("aria-invalid") == "true")
    inn.send_keys(Keys.BACKSPACE + "4")
    wait.until(lambda d: d.find_element(By.ID, "atom-destInn").get_attribute("aria-invalid") == "false")
    # "1,500" has two readings: refused next to the field, and left as the person typed it.
    amount = driver.find_element(By.ID, "atom-amount")
    wait.until(EC.text_to_be_present_in_element((By.ID, "atom-amount-error"), "ambiguous"))
    check(amount.get_attribute("value") == "1,500", f"the typed amount is not rewritten: {amount.get_attribute('value')!r}")
    check(amount.get_attribute("aria-invalid") == "true", "the refused amount is marked")
    amount.clear()
    amount.send_keys("1 500,50")
    wait.until(EC.text_to_be_present_in_element((By.ID, "atom-amount-verdict"), "1,500.50"))
    amount.send_keys(Keys.TAB)
    time.sleep(0.6)
    check(amount.get_attribute("value") == "1 500,50", f"the accepted amount stays as typed: {amount.get_attribute('value')!r}")
    check(plain(driver.find_element(By.ID, "atom-amount-verdict").text) == "= 1,500.50 RUB", "the server's reading is shown")
    # A refused change after an accepted value: the server still holds 1 500,50, the field shows the refused text.
    # Pay does not go to a review of the old amount; it points at the field, and once it is mended the review shows it.
    amount.clear()
    amount.send_keys("1000,999" + Keys.TAB)
    wait.until(EC.text_to_be_present_in_element((By.ID, "atom-amount-error"), "after the decimal separator"))
    driver.find_element(By.ID, "atom-btnSend").click()
    time.sleep(0.8)
    check(driver.find_element(By.ID, "run").is_displayed() and not driver.find_element(By.ID, "review").is_displayed(),
          "Pay with a refused amount on screen stays on the form (it would review the amount before it)")
    check(active_id(driver) == "atom-amount", f"Pay puts the focus on the refused field: {active_id(driver)}")
    check(driver.find_element(By.ID, "error-summary").is_displayed(), "the error summary names the refused field")
    amount.clear()
    amount.send_keys("1 500,50" + Keys.TAB)
    wait.until(EC.text_to_be_present_in_element((By.ID, "atom-amount-verdict"), "1,500.50"))

    # A reload in the middle of the form: the same address, the form resumed with its values.
    form_url = driver.current_url
    driver.refresh()
    wait.until(EC.visibility_of_element_located((By.ID, "atom-destName")))
    check(driver.current_url == form_url, "the reload keeps the form's address")
    check(driver.find_element(By.ID, "atom-destName").get_attribute("value") == "ООО Ромашка", "the reloaded form has its values")
    check(driver.find_element(By.ID, "atom-amount").get_attribute("value") == "1500.50", "the reloaded amount is the server's")
    # Back leaves the form for the operations; Forward returns to it, values kept.
    driver.back()
    wait.until(EC.visibility_of_element_located((By.ID, "home")))
    run_id = form_url.split("#/run/")[1]
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#resume a[data-run='{run_id}']"))
    resume = plain(driver.find_element(By.CSS_SELECTOR, f"#resume a[data-run='{run_id}'] .resume-summary").text)
    check(resume == "1,500.50 RUB · ООО Ромашка", f"the open form is named by what it holds, not by its title alone: {resume!r}")
    driver.forward()
    wait.until(EC.visibility_of_element_located((By.ID, "atom-destName")))
    check(driver.find_element(By.ID, "atom-destDesc").get_attribute("value") == "Оплата по счёту 7", "Forward returns to the form")

    driver.find_element(By.ID, "atom-btnSend").click()
    wait.until(EC.visibility_of_element_located((By.ID, "review")))
    check("/review" in driver.current_url, "the review has its own address")
    summary = plain(driver.find_element(By.ID, "review-summary").text)
    check(summary == "1,500.50 RUB → ООО Ромашка", f"the review leads with amount and payee: {summary!r}")
    answers = plain(driver.find_element(By.ID, "review-fields").text)
    check(answers.count("Change") >= 5, f"each value of the form has its change link: {answers!r}")
    # A change link leads back to its field, focused; the review is built again after.
    driver.find_element(By.CSS_SELECTOR, "#review-fields a[href$='/field/destDesc']").click()
    wait.until(EC.visibility_of_element_located((By.ID, "run")))
    check(active_id(driver) == "atom-destDesc", f"the change link focuses its field: {active_id(driver)}")
    driver.find_element(By.ID, "atom-btnSend").click()
    wait.until(EC.visibility_of_element_located((By.ID, "review")))
    # A wrong code is refused and says so; then the right one typed with a space, as the app shows it.
    code = served.code()
    wrong = "000000" if code != "000000" else "111111"
    driver.find_element(By.ID, "code").send_keys(wrong + Keys.ENTER)
    wait.until(EC.text_to_be_present_in_element((By.ID, "code-error"), "wrong"))
    check(active_id(driver) == "code", "the focus is back at the code")
    code_field = driver.find_element(By.ID, "code")
    code_field.clear()
    code = fresh_code(served)
    code_field.send_keys(code[:3] + " " + code[3:] + Keys.ENTER)
    wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
    check("/receipt" in driver.current_url, "the receipt has its own address")
    receipt = plain(driver.find_element(By.ID, "receipt-lines").text)
    check("posted" in receipt and "148,499.50 RUB" in receipt,
          f"the receipt shows the posting and the balance: {receipt!r}")
    check("Payee" in receipt and "ООО Ромашка" in receipt and "Purpose" in receipt,
          f"the receipt names the payee and the purpose, as the entry's details and the PDF do: {receipt!r}")
    driver.refresh()
    wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
    check(plain(driver.find_element(By.ID, "receipt-lines").text) == receipt, "a reloaded receipt shows the same receipt")
    driver.find_element(By.ID, "done").click()
    wait_balance(driver, wait, served, "148,499.50 RUB")
    check("1,500.50 RUB" in plain(driver.find_element(By.ID, "journal").text), "the history lists the payment")


def empty_form(driver, wait):
    """Submitting an empty form: the error summary at the top links to each field; the focus goes to the first."""
    open_operation(driver, wait, "pay.pp.quick")
    driver.find_element(By.ID, "atom-btnSend").click()
    wait.until(EC.visibility_of_element_located((By.ID, "error-summary")))
    links = driver.find_elements(By.CSS_SELECTOR, "#error-list a")
    check(len(links) >= 3, f"the summary lists the fields to fill: {[l.text for l in links]}")
    for link in links:
        field = link.get_attribute("href").split("#")[-1]
        caption = driver.find_element(By.CSS_SELECTOR, f"label[for='{field}']").text
        check(link.text.count(caption) == 1, f"the summary names {caption!r} once: {link.text!r}")
    check(active_id(driver).startswith("atom-"), f"the focus is on the first field to mend: {active_id(driver)}")
    links[-1].click()
    target = links[-1].get_attribute("href").split("#")[-1]
    check(active_id(driver) == target, f"a summary link focuses its field: {active_id(driver)} != {target}")
    driver.find_element(By.ID, "cancel").click()
    wait.until(EC.visibility_of_element_located((By.ID, "home")))


def passkey_payments(driver, wait, served):
    """Registers a passkey on Chromium's virtual authenticator (CTAP2, internal, user verification), signs a payment
    with it, and shows a tampered amount refused."""
    options = VirtualAuthenticatorOptions()
    options.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
    options.transport = VirtualAuthenticatorOptions.Transport.INTERNAL
    options.has_resident_key = True
    options.has_user_verification = True
    options.is_user_verified = True
    driver.add_virtual_authenticator(options)
    # Enrolling an authenticator needs the customer's current one-time code (step-up): without it nothing is registered.
    driver.find_element(By.ID, "passkey-register").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "passkey-error"), "one-time code"))
    check(len(driver.get_credentials()) == 0 and "Your passkey" not in driver.find_element(By.ID, "passkey-status").text,
          "a passkey is not registered without the code")
    driver.find_element(By.ID, "passkey-code").send_keys(fresh_code(served))
    driver.find_element(By.ID, "passkey-register").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "passkey-status"), "Your passkey signs your payments"))
    check(len(driver.get_credentials()) == 1, "the virtual authenticator holds the new passkey")

    fill_quick(driver, wait, served, "250")
    summary = plain(driver.find_element(By.ID, "review-summary").text)
    check(summary == "250.00 RUB → ООО Ромашка", f"the passkey review leads with amount and payee: {summary!r}")
    check(not driver.find_element(By.ID, "code").is_displayed(), "no code is asked for with a passkey")
    check(driver.find_element(By.ID, "sign").text == "Sign with passkey", "the sign button names the passkey")
    check("Passkey" in driver.find_element(By.ID, "review-fields").text, "the review names the passkey as the method")
    driver.find_element(By.ID, "sign").click()
    wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
    receipt = plain(driver.find_element(By.ID, "receipt-lines").text)
    check("posted" in receipt and "147,699.50 RUB" in receipt, f"the passkey receipt shows the posting: {receipt!r}")
    check(driver.get_credentials()[0].sign_count >= 1, "the passkey signed (its counter advanced)")
    driver.find_element(By.ID, "done").click()
    wait_balance(driver, wait, served, "147,699.50 RUB")

    fill_quick(driver, wait, served, "10")
    outcome = driver.execute_async_script(TAMPER)
    problem = (outcome or {}).get("problem") or {}
    check(outcome and outcome.get("posted") is False, f"an assertion for 10.00 is refused for 9999.00: {outcome!r}")
    check(outcome and outcome.get("amount") == "9999.00", f"the tampered document was the one sent: {outcome!r}")
    check(problem.get("status") == 422 and problem.get("type") == "urn:rbs-host:problem:wrong-passkey",
          f"the refusal is a wrong-passkey problem: {problem!r}")
    detail = problem.get("detail", "")
    check("did not sign this document" in detail and "amount" not in detail and "challenge" not in detail,
          f"the refusal does not say which element failed: {detail!r}")
    driver.find_element(By.ID, "back").click()
    wait.until(EC.visibility_of_element_located((By.ID, "run")))
    driver.find_element(By.ID, "cancel").click()
    wait_balance(driver, wait, served, "147,699.50 RUB")
    check("9,999.00" not in driver.find_element(By.ID, "journal").text, "nothing was posted for the tampered amount")


def basket_payments(driver, wait, served):
    """Two reviewed payments put in the basket, the basket's review (each amount and payee, the total), one code."""
    for purpose, amount in [("Оплата по счёту 9", "300"), ("Оплата по счёту 10", "200")]:
        type_quick(driver, wait, served, purpose, amount)
        to_review(driver, wait)
        driver.find_element(By.ID, "add-to-basket").click()
        wait.until(EC.visibility_of_element_located((By.ID, "basket")))
    # A reload keeps the basket: its runs stay reviewed on the server, the tab remembers which. The reload here is the
    # switch to Russian: the basket names each operation in the page's language, not the one it was added in.
    switch_language(driver, wait, "ru")
    wait.until(EC.visibility_of_element_located((By.ID, "basket")))
    rows = [plain(row.text) for row in driver.find_elements(By.CSS_SELECTOR, "#basket-items tbody tr")]
    check(len(rows) == 2 and all("Быстрый платёж" in r and "Quick payment" not in r and "40702810638000000123" in r for r in rows),
          f"the basket names the operation in Russian after the switch, and keeps each payee's account: {rows!r}")
    switch_language(driver, wait, "en")
    wait.until(EC.visibility_of_element_located((By.ID, "basket")))
    rows = [plain(row.text) for row in driver.find_elements(By.CSS_SELECTOR, "#basket-items tbody tr")]
    check(len(rows) == 2 and "300.00 RUB" in rows[0] and "200.00 RUB" in rows[1] and all("ООО Ромашка" in r for r in rows),
          f"the basket lists both: {rows!r}")
    driver.find_element(By.ID, "basket-make").click()
    wait.until(EC.visibility_of_element_located((By.ID, "basket-review")))
    documents = [plain(d.text) for d in driver.find_elements(By.CSS_SELECTOR, "#basket-documents dl")]
    check(len(documents) == 2 and "300.00 RUB" in documents[0] and "200.00 RUB" in documents[1]
          and all("ООО Ромашка" in d for d in documents), f"the basket's review shows each amount and payee: {documents!r}")
    totals = plain(driver.find_element(By.CSS_SELECTOR, "#basket-totals tbody").text)
    check(totals == "Total, RUB 500.00 RUB", f"the basket's review shows the total: {totals!r}")
    check(len(driver.find_element(By.ID, "basket-id").text) == 64, "the basket's review shows the basket id")
    driver.find_element(By.ID, "basket-code").send_keys(fresh_code(served) + Keys.ENTER)
    wait.until(EC.text_to_be_present_in_element((By.ID, "basket-receipts"), "posted"))
    receipts = driver.find_element(By.ID, "basket-receipts").text
    check(receipts.count("posted — Journal entry") == 2, f"each document has its receipt: {receipts!r}")
    wait_balance(driver, wait, served, "147,999.50 RUB")


def duplicate_payment(driver, wait, served):
    """The passkey's 250.00 payment again: the review warns and names the earlier entry; signing waits for the
    person's confirmation; then it is posted."""
    fill_quick(driver, wait, served, "250")
    wait.until(EC.visibility_of_element_located((By.ID, "duplicate")))
    warning = plain(driver.find_element(By.ID, "duplicate-message").text)
    check(warning.startswith("This payment repeats journal entry 8, posted ") and "250.00 RUB to ООО Ромашка" in warning,
          f"the review names the earlier payment: {warning!r}")
    check(driver.find_element(By.ID, "duplicate").get_attribute("role") == "alert", "the warning is announced")
    driver.find_element(By.ID, "sign").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "code-error"), "Confirm above"))
    check(active_id(driver) == "confirm-duplicate", "the confirmation has the focus")
    check(not driver.find_element(By.ID, "receipt").is_displayed(), "nothing is signed before the person confirms")
    driver.find_element(By.ID, "confirm-duplicate").click()
    driver.find_element(By.ID, "sign").click()
    wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
    receipt = plain(driver.find_element(By.ID, "receipt-lines").text)
    check("posted" in receipt and "147,449.50 RUB" in receipt, f"the confirmed duplicate is posted: {receipt!r}")
    driver.find_element(By.ID, "done").click()
    wait_balance(driver, wait, served, "147,449.50 RUB")


def tax_payment(driver, wait, served):
    """The budget payment: switching the type shows fields 106–109."""
    open_operation(driver, wait, "pay.pp.tax")
    wait.until(EC.visibility_of_element_located((By.ID, "atom-type")))
    budget = ["basis", "period", "docNumber", "docDate"]
    check(all(not driver.find_element(By.ID, "atom-" + a).is_displayed() for a in budget), "106–109 start hidden")
    Select(driver.find_element(By.ID, "atom-type")).select_by_value("1")
    for atom in budget:
        wait.until(EC.visibility_of_element_located((By.ID, "atom-" + atom)))
    # Field 109 offers "0" (no document, order 107n); a date typed as people write it over it is sent as typed and
    # accepted (not rewritten to ISO by the page).
    date = driver.find_element(By.ID, "atom-docDate")
    wait.until(lambda _: date.get_attribute("value") == "0")
    date.send_keys(Keys.CONTROL, "a")
    date.send_keys("01.02.2025" + Keys.TAB)
    time.sleep(0.8)
    check(date.get_attribute("value") == "01.02.2025" and date.get_attribute("aria-invalid") == "false",
          f"the date stays as typed and is accepted: {date.get_attribute('value')!r}")
    Select(driver.find_element(By.ID, "atom-type")).select_by_value("0")
    for atom in budget:
        wait.until(EC.invisibility_of_element_located((By.ID, "atom-" + atom)))
    driver.find_element(By.ID, "cancel").click()
    wait.until(EC.visibility_of_element_located((By.ID, "home")))


def card_state(driver):
    try:
        return driver.find_element(By.CSS_SELECTOR, "#cards-list > li").get_attribute("data-state")
    except (StaleElementReferenceException, NoSuchElementException):
        return ""


def card_flow(driver, wait, served, shots):
    """The customer's card blocked, then unblocked, from the cards screen: each a form with the card filled in,
    checked and signed as any operation; the list follows the core. The form and the blocked card are screenshots."""
    axe = Axe(driver)
    go_place(driver, wait, "cards")
    check("#/cards" in driver.current_url, f"the cards have their own address: {driver.current_url}")
    wait.until(lambda d: card_state(d) == "active")
    items = [plain(item.text) for item in driver.find_elements(By.CSS_SELECTOR, "#cards-list > li")]
    check(len(items) == 1 and "4111 11** **** 1111" in items[0] and "Active" in items[0], f"the card is listed, active: {items}")
    for action, operation, state in [("block", "card.block", "blocked"), ("unblock", "card.unblock", "active")]:
        driver.find_element(By.CSS_SELECTOR, "#cards-list [data-card-action]").click()
        wait.until(EC.visibility_of_element_located((By.ID, "run")))
        card = driver.find_element(By.ID, "atom-cardNumber")
        wait.until(lambda _: card.get_attribute("value") == "4111 11** **** 1111")
        check("4111 11** **** 1111" in driver.find_element(By.ID, "run").text, f"{operation} lists the card")
        # The confirmation is not answered yet: off, and no error under it before anyone touched it.
        unanswered = driver.find_element(By.ID, "atom-confirm-error").text
        check(unanswered == "", f"a fresh {operation} form opens without an error on its confirmation: {unanswered!r}")
        if operation == "card.block":
            Select(driver.find_element(By.ID, "atom-reason")).select_by_value("lost")
        driver.find_element(By.ID, "atom-confirm").click()
        time.sleep(0.8)
        if operation == "card.block":
            axe.inject()
            look(driver, axe, shots, "en", 1280, "card-block")
        driver.find_element(By.ID, "atom-btnBlock" if operation == "card.block" else "atom-btnUnblock").click()
        wait.until(EC.visibility_of_element_located((By.ID, "review")))
        # No amount and no payee: the heading says what the document does, where a payment's says amount → payee.
        heading = driver.find_element(By.ID, "review-summary").text
        check(heading == f"{action.capitalize()} the card 4111 11** **** 1111", f"{operation}'s review is headed by its action: {heading!r}")
        if driver.find_element(By.ID, "code").is_displayed():
            driver.find_element(By.ID, "code").send_keys(fresh_code(served) + Keys.ENTER)
        else:
            driver.find_element(By.ID, "sign").click()
        wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
        # The receipt names the card it acted on (and a block's reason), as the entry's details do.
        terms = [plain(term.text) for term in driver.find_elements(By.CSS_SELECTOR, "#receipt-lines dt")]
        values = [plain(value.text) for value in driver.find_elements(By.CSS_SELECTOR, "#receipt-lines dd")]
        shown = dict(zip(terms, values))
        check(shown.get("Card") == "4111 11** **** 1111", f"{operation}'s receipt names the card: {shown}")
        if operation == "card.block":
            check(shown.get("Reason for blocking") == "Lost", f"the block's receipt gives its reason: {shown}")
            look(driver, axe, shots, "en", 1280, "card-block-receipt")
        driver.find_element(By.ID, "done").click()
        wait.until(EC.visibility_of_element_located((By.ID, "home")))
        go_place(driver, wait, "cards")
        wait.until(lambda d: card_state(d) == state)
        print(f"card {action}ed", flush=True)


# MARK: - The walk: every screen, both languages, both widths

# SHA-256 and Ed25519 name the hash and the signature in an entry's details; "QR" is how Russian writes it too
# ("QR-код", the payment QR code of ГОСТ Р 56042-2014).
ENGLISH_ALLOWED = {"RUB", "USD", "EUR", "TOTP", "OCRA", "BIC", "INN", "SHA", "Ed", "QR"}

HOST_TEXT = """
const skip = (node) => node.closest("[data-source], #lang-switch, .hash, code, [hidden], .visually-hidden");
const words = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode;
  if (!node.parentElement || skip(node.parentElement) || node.parentElement.closest("script, style")) continue;
  if (node.parentElement.offsetParent === null && getComputedStyle(node.parentElement).position !== "fixed") continue;
  for (const word of node.textContent.match(/[A-Za-z]{2,}/g) || []) words.push(word);
}
return words;
"""


def switch_language(driver, wait, lang):
    driver.execute_script("localStorage.setItem('rbs-lang', arguments[0])", lang)
    driver.refresh()
    wait.until(lambda d: d.execute_script("return document.documentElement.lang") == lang)
    wait.until(EC.visibility_of_element_located((By.ID, "bank")))


def look(driver, axe, shots, lang, width, screen):
    """One screen: its screenshot, no sideways scrolling, axe-core, and no host English on a Russian page."""
    time.sleep(0.4)
    name = f"{lang}-{width}-{screen}"
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(os.path.join(shots, name + ".png"))
    widths = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    check(widths[0] <= widths[1], f"{name}: the page scrolls sideways ({widths[0]} > {widths[1]})")
    results = axe.run(options="{resultTypes: ['violations']}")
    bad = [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}" for v in results["violations"]
           if v["impact"] in ("critical", "serious")]
    check(not bad, f"{name}: axe-core finds {bad}")
    if lang == "ru":
        english = [w for w in driver.execute_script(HOST_TEXT) if w not in ENGLISH_ALLOWED]
        check(not english, f"{name}: English words on the Russian page: {english}")
    print(f"looked at {name}", flush=True)


def walk(driver, wait, served, shots, lang, width, amount):
    axe = Axe(driver)
    driver.set_window_size(width, 844 if width < 800 else 1000)
    switch_language(driver, wait, lang)
    axe.inject()
    go_home(driver, wait)
    axe.inject()
    look(driver, axe, shots, lang, width, "home")
    if width < 800:
        driver.find_element(By.ID, "menu-toggle").click()
        wait.until(EC.visibility_of_element_located((By.ID, "ops-nav")))
        check(driver.find_element(By.ID, "menu-toggle").get_attribute("aria-expanded") == "true", "the menu says it is open")
        look(driver, axe, shots, lang, width, "menu")
        driver.find_element(By.ID, "menu-toggle").click()
    open_operation(driver, wait, "pay.pp.quick")
    driver.find_element(By.ID, "atom-btnSend").click()
    wait.until(EC.visibility_of_element_located((By.ID, "error-summary")))
    look(driver, axe, shots, lang, width, "form-errors")
    type_quick(driver, wait, served, "Оплата по счёту 11", amount, open_it=False)
    driver.find_element(By.ID, "atom-amount").send_keys(Keys.TAB)
    time.sleep(0.8)
    look(driver, axe, shots, lang, width, "form")
    driver.find_element(By.ID, "atom-btnSend").click()
    wait.until(EC.visibility_of_element_located((By.ID, "review")))
    look(driver, axe, shots, lang, width, "review")
    if driver.find_element(By.ID, "code").is_displayed():
        code = fresh_code(served)
        driver.find_element(By.ID, "code").send_keys(code[:3] + " " + code[3:] + Keys.ENTER)
    else:
        driver.find_element(By.ID, "sign").click()
    wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
    look(driver, axe, shots, lang, width, "receipt")
    driver.find_element(By.ID, "done").click()
    wait.until(EC.visibility_of_element_located((By.ID, "home")))
    # The places of the bank: the history searched, one entry, the statement.
    go_place(driver, wait, "history")
    if width < 800:
        # On a phone the search and filters are folded under one line, so the list is what the screen shows.
        check(not driver.find_element(By.ID, "history-q").is_displayed(), f"{lang}-{width}: the history's search starts folded")
        driver.find_element(By.CSS_SELECTOR, "#history-filters > summary").click()
    driver.find_element(By.ID, "history-q").send_keys("Ромашка" + Keys.ENTER)
    wait.until(lambda d: "q=" in d.current_url and rows(d, "history-list"))
    look(driver, axe, shots, lang, width, "history")
    driver.find_element(By.CSS_SELECTOR, "#history-list tbody tr a.details-link").click()
    wait.until(EC.visibility_of_element_located((By.ID, "entry-sections")))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#entry-sections dl"))
    look(driver, axe, shots, lang, width, "entry")
    go_place(driver, wait, "statement")
    driver.find_element(By.CSS_SELECTOR, "#statement-form button[type=submit]").click()
    wait.until(EC.visibility_of_element_located((By.ID, "statement-result")))
    look(driver, axe, shots, lang, width, "statement")
    go_home(driver, wait)


def walk_place(driver, wait, shots, lang, width, place):
    """A place of the bank whose list is filled (the templates kept by templates_flow, the customer's card) in a
    language at a width."""
    axe = Axe(driver)
    driver.set_window_size(width, 844 if width < 800 else 1000)
    switch_language(driver, wait, lang)
    go_place(driver, wait, place)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#{place}-list > li"))
    axe.inject()
    look(driver, axe, shots, lang, width, place)


def main():
    served = Served()
    driver = browser()
    wait = WebDriverWait(driver, 30)
    shots = os.environ.get("SCREENSHOTS") or os.path.join(ROOT, "docs", "screenshots")
    os.makedirs(shots, exist_ok=True)
    try:
        driver.get(served.web + "/")
        wait.until(EC.visibility_of_element_located((By.ID, "login-customer")))
        check(driver.execute_script("return document.documentElement.lang") == "en", "Accept-Language en: the page is English")
        check(active_id(driver) == "login-customer", "the login form has the focus")
        # A wrong password first: the error is shown, in an alert region.
        driver.find_element(By.ID, "login-customer").send_keys(served.customer)
        driver.find_element(By.ID, "login-password").send_keys("wrong" + Keys.ENTER)
        wait.until(EC.text_to_be_present_in_element((By.ID, "login-error"), "wrong"))
        check(driver.find_element(By.ID, "login-error").get_attribute("role") == "alert", "login errors are announced")
        driver.find_element(By.ID, "login-password").send_keys(served.password + Keys.ENTER)
        wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "[data-operation='pay.pp.quick']")))
        wait_balance(driver, wait, served, "150,000.00 RUB")
        # Arriving at home puts the focus on the main region for a screen reader, without scrolling the header (the
        # customer's name, the language, log out) out of view or drawing a focus ring around the whole page.
        wait.until(lambda d: d.execute_script("return document.activeElement && document.activeElement.id") == "main")
        check(driver.execute_script("return window.scrollY") == 0, "home opens at the top of the page, its header in view")
        check(driver.execute_script("return getComputedStyle(document.getElementById('main')).outlineStyle") == "none",
              "the main region, focused on arrival, draws no ring around the page")

        first_payment(driver, wait, served)
        basket_payments(driver, wait, served)
        history_and_statement(driver, wait, served)
        # The walk signs with codes (before the passkey): journal entries 4–7, 11 + 12 + 13 + 14 = 50.00 RUB.
        for number, (lang, width) in enumerate([("ru", 390), ("ru", 1280), ("en", 390), ("en", 1280)]):
            walk(driver, wait, served, shots, lang, width, str(11 + number))
        # The language is remembered: a reload stays in the chosen one.
        driver.set_window_size(1280, 1100)
        switch_language(driver, wait, "ru")
        driver.refresh()
        wait.until(EC.visibility_of_element_located((By.ID, "bank")))
        check(driver.execute_script("return document.documentElement.lang") == "ru", "the chosen language is remembered")
        check(driver.find_element(By.ID, "logout").text == "Выйти", "the Russian page says Выйти")
        # An internal error (500) is told in the page's language with its reference, not with the server's detail
        # (which names no cause either: that is in the server's log); any other problem keeps its detail.
        internal = {"type": "urn:rbs-host:problem:internal", "title": "The server could not do this", "status": 500,
                    "detail": "the server's log names the cause under reference 00112233aabbccdd", "reference": "00112233aabbccdd"}
        said = driver.execute_script("return new ProblemError(arguments[0]).message", internal)
        check(said == "Банк не смог сделать это сейчас. Прежде чем платить снова, проверьте историю. "
              "Номер для обращения в банк: 00112233aabbccdd.", f"an internal error is told in Russian with its reference: {said!r}")
        other = {"type": "urn:rbs-host:problem:not-found", "title": "Not found", "status": 404, "detail": "there is no run 7"}
        check(driver.execute_script("return new ProblemError(arguments[0]).message", other) == "there is no run 7",
              "a problem other than an internal error is told by its detail")
        switch_language(driver, wait, "en")
        go_home(driver, wait)
        wait_balance(driver, wait, served, "147,949.50 RUB")
        passkey_payments(driver, wait, served)
        duplicate_payment(driver, wait, served)
        tax_payment(driver, wait, served)
        empty_form(driver, wait)
        # Templates last: the payment signed from one moves the balances the steps above expect.
        templates_flow(driver, wait, served)
        for lang, width in [("ru", 390), ("ru", 1280), ("en", 390), ("en", 1280)]:
            walk_place(driver, wait, shots, lang, width, "templates")
        switch_language(driver, wait, "en")
        driver.set_window_size(1280, 1000)
        card_flow(driver, wait, served, shots)
        for lang, width in [("ru", 390), ("ru", 1280), ("en", 390), ("en", 1280)]:
            walk_place(driver, wait, shots, lang, width, "cards")
        switch_language(driver, wait, "en")

        # Nothing the page did was refused by the content security policy, and no script failed.
        problems = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                    and not re.search(r"\b(401|404|409|422)\b", entry["message"])
                    and "from=31.02.2026" not in entry["message"]]  # the wrong day typed on purpose (400)
        check(not problems, f"the browser console has errors: {problems}")
    except Exception:
        # Where a step stopped: the address, the page's notice and console, and a screenshot beside the others.
        driver.save_screenshot(os.path.join(shots, "failure.png"))
        print("stopped at", driver.current_url, "notice:", driver.find_element(By.ID, "notice").text, flush=True)
        print("console:", [entry["message"] for entry in driver.get_log("browser")][-10:], flush=True)
        raise
    finally:
        driver.quit()
        log = served.stop()
    check("\"PUT /api/v1/runs/" in log, "the request log has the commits")
    if failures:
        print(f"browser test: {len(failures)} failure(s)")
        sys.exit(1)
    print("browser test: ok")


if __name__ == "__main__":
    main()
