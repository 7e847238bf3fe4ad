"""The web client in a real browser (Debian's headless Chromium driven by selenium): log in, fill the quick payment
(the bank's name appears after the BIC), sign it with a code computed here, see the receipt and the new balance;
put two more in the basket and sign them with one code (each amount and payee and the total
on its review); register a passkey on Chromium's virtual authenticator and sign the next payment with it (its challenge is the
document's hash), then show that an assertion for one amount is refused for a tampered amount; the same payment
again is signed only after the person confirms the duplicate warning; switch the budget
payment's type (fields 106–109 appear). With SCREENSHOTS=DIR it saves the README's screenshots."""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from served import Served

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message, flush=True)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1100",
                     "--lang=en-US", "--disable-gpu"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"), options=options)


def screenshot(driver, path, height):
    """The page from its top, tall enough for the whole form."""
    driver.set_window_size(1280, height)
    driver.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.3)
    driver.save_screenshot(path)
    driver.set_window_size(1280, 1100)


def type_quick(driver, wait, served, purpose, amount):
    """The quick payment, typed as a person would; the bank's name appears after the BIC."""
    driver.find_element(By.CSS_SELECTOR, "[data-operation='pay.pp.quick']").click()
    wait.until(EC.visibility_of_element_located((By.ID, "atom-destName")))
    Select(driver.find_element(By.ID, "atom-srcAccount")).select_by_value(served.accounts[0])
    for atom, text in [("destName", "ООО Ромашка"), ("destInn", "1234567894"), ("destBic", "044525225")]:
        driver.find_element(By.ID, "atom-" + atom).send_keys(text)
    wait.until(EC.text_to_be_present_in_element((By.ID, "atom-destBicInfo"), "ПАО Сбербанк"))
    for atom, text in [("destAccount", "40702810638000000123"), ("destDesc", purpose), ("amount", amount)]:
        driver.find_element(By.ID, "atom-" + atom).send_keys(text)


def fill_quick(driver, wait, served, amount):
    type_quick(driver, wait, served, "Оплата по счёту 8", amount)
    driver.find_element(By.ID, "atom-amount").send_keys(Keys.TAB)
    time.sleep(0.8)
    driver.find_element(By.ID, "atom-btnSend").click()
    wait.until(EC.visibility_of_element_located((By.ID, "review")))


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


def passkey_payments(driver, wait, served, balance_cell, shots):
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
    driver.find_element(By.ID, "passkey-code").send_keys(served.fresh_code())
    driver.find_element(By.ID, "passkey-register").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "passkey-status"), "Your passkey signs your payments"))
    check(len(driver.get_credentials()) == 1, "the virtual authenticator holds the new passkey")

    fill_quick(driver, wait, served, "250")
    summary = driver.find_element(By.ID, "review-summary").text
    check(summary == "250.00 RUB → ООО Ромашка", f"the passkey review leads with amount and payee: {summary!r}")
    check(not driver.find_element(By.ID, "code").is_displayed(), "no code is asked for with a passkey")
    check(driver.find_element(By.ID, "sign").text == "Sign with passkey", "the sign button names the passkey")
    check("Passkey" in driver.find_element(By.ID, "review-fields").text, "the review names the passkey as the method")
    if shots:
        screenshot(driver, os.path.join(shots, "passkey-review.png"), 1100)
    driver.find_element(By.ID, "sign").click()
    wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
    receipt = driver.find_element(By.ID, "receipt-lines").text
    check("posted" in receipt and "147749.50 RUB" in receipt, f"the passkey receipt shows the posting: {receipt!r}")
    wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, balance_cell), "147749.50 RUB"))
    check(driver.get_credentials()[0].sign_count >= 1, "the passkey signed (its counter advanced)")
    driver.find_element(By.ID, "done").click()

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
    driver.refresh()
    wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, balance_cell), "147749.50 RUB"))
    check("9999.00" not in driver.find_element(By.ID, "journal").text, "nothing was posted for the tampered amount")


def basket_payments(driver, wait, served, balance_cell, shots):
    """Two reviewed payments put in the basket, the basket's review (each amount and payee, the total), one code."""
    for purpose, amount in [("Оплата по счёту 9", "300"), ("Оплата по счёту 10", "200")]:
        type_quick(driver, wait, served, purpose, amount)
        driver.find_element(By.ID, "atom-amount").send_keys(Keys.TAB)
        time.sleep(0.8)
        driver.find_element(By.ID, "atom-btnSend").click()
        wait.until(EC.visibility_of_element_located((By.ID, "review")))
        driver.find_element(By.ID, "add-to-basket").click()
        wait.until(EC.visibility_of_element_located((By.ID, "basket")))
    rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#basket-items tbody tr")]
    check(rows == ["1 Quick payment 300.00 RUB ООО Ромашка 40702810638000000123",
                   "2 Quick payment 200.00 RUB ООО Ромашка 40702810638000000123"], f"the basket lists both: {rows!r}")
    driver.find_element(By.ID, "basket-make").click()
    wait.until(EC.visibility_of_element_located((By.ID, "basket-review")))
    documents = driver.find_elements(By.CSS_SELECTOR, "#basket-documents table")
    check(len(documents) == 2 and "300.00 RUB" in documents[0].text and "200.00 RUB" in documents[1].text
          and all("ООО Ромашка" in d.text for d in documents), "the basket's review shows each amount and payee")
    totals = driver.find_element(By.CSS_SELECTOR, "#basket-totals tbody").text
    check(totals == "Total, RUB 500.00 RUB", f"the basket's review shows the total: {totals!r}")
    check(len(driver.find_element(By.ID, "basket-id").text) == 64, "the basket's review shows the basket id")
    if shots:
        screenshot(driver, os.path.join(shots, "basket-review.png"), 1500)
    driver.find_element(By.ID, "basket-code").send_keys(served.code(time.time() + 30) + Keys.ENTER)
    wait.until(EC.text_to_be_present_in_element((By.ID, "basket-receipts"), "posted"))
    receipts = driver.find_element(By.ID, "basket-receipts").text
    check(receipts.count("posted — journal entry") == 2, f"each document has its receipt: {receipts!r}")
    wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, balance_cell), "147999.50 RUB"))


def duplicate_payment(driver, wait, served, balance_cell):
    """The passkey's 250.00 payment again: the review warns and names the earlier entry; signing waits for the
    person's confirmation; then it is posted."""
    fill_quick(driver, wait, served, "250")
    wait.until(EC.visibility_of_element_located((By.ID, "duplicate")))
    warning = driver.find_element(By.ID, "duplicate-message").text
    check(warning.startswith("This payment repeats journal entry 4, posted ") and "250.00 RUB to ООО Ромашка" in warning,
          f"the review names the earlier payment: {warning!r}")
    check(driver.find_element(By.ID, "duplicate").get_attribute("role") == "alert", "the warning is announced")
    driver.find_element(By.ID, "sign").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "code-error"), "Confirm above"))
    check(driver.switch_to.active_element.get_attribute("id") == "confirm-duplicate", "the confirmation has the focus")
    check(not driver.find_element(By.ID, "receipt").is_displayed(), "nothing is signed before the person confirms")
    driver.find_element(By.ID, "confirm-duplicate").click()
    driver.find_element(By.ID, "sign").click()
    wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
    receipt = driver.find_element(By.ID, "receipt-lines").text
    check("posted" in receipt and "147499.50 RUB" in receipt, f"the confirmed duplicate is posted: {receipt!r}")
    wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, balance_cell), "147499.50 RUB"))
    driver.find_element(By.ID, "done").click()


def main():
    served = Served()
    driver = browser()
    wait = WebDriverWait(driver, 30)
    shots = os.environ.get("SCREENSHOTS")
    try:
        driver.get(served.web + "/")
        wait.until(EC.visibility_of_element_located((By.ID, "login-customer")))
        check(driver.switch_to.active_element.get_attribute("id") == "login-customer", "the login form has the focus")
        # A wrong password first: the error is shown, in an alert region.
        driver.find_element(By.ID, "login-customer").send_keys(served.customer)
        driver.find_element(By.ID, "login-password").send_keys("wrong" + Keys.ENTER)
        wait.until(EC.text_to_be_present_in_element((By.ID, "login-error"), "wrong"))
        check(driver.find_element(By.ID, "login-error").get_attribute("role") == "alert", "login errors are announced")
        driver.find_element(By.ID, "login-password").send_keys(served.password + Keys.ENTER)
        wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, "[data-operation='pay.pp.quick']")))
        balance_cell = f"tr[data-account='{served.accounts[0]}'] td.num"
        check(driver.find_element(By.CSS_SELECTOR, balance_cell).text == "150000.00 RUB", "the opening balance is shown")

        # The quick payment, typed as a person would (the amount as people write it: the client sends 1500.50).
        type_quick(driver, wait, served, "Оплата по счёту 7", "1 500,50")
        # A live check as the person types: a bad INN is marked before the submit.
        inn = driver.find_element(By.ID, "atom-destInn")
        inn.send_keys(Keys.BACKSPACE + "5")
        wait.until(lambda d: d.find_element(By.ID, "atom-destInn").get_attribute("aria-invalid") == "true")
        inn.send_keys(Keys.BACKSPACE + "4")
        wait.until(lambda d: d.find_element(By.ID, "atom-destInn").get_attribute("aria-invalid") == "false")
        driver.find_element(By.ID, "atom-amount").send_keys(Keys.TAB)
        time.sleep(0.8)
        if shots:
            screenshot(driver, os.path.join(shots, "quick-payment.png"), 1300)
        # The plugin's submit button (btnSend, flagged submit) leads to the review.
        driver.find_element(By.ID, "atom-btnSend").click()
        wait.until(EC.visibility_of_element_located((By.ID, "review")))
        summary = driver.find_element(By.ID, "review-summary").text
        check(summary == "1500.50 RUB → ООО Ромашка", f"the review leads with amount and payee: {summary!r}")
        check(len(driver.find_element(By.ID, "review-hash").text) == 64, "the review shows the document hash")
        # A wrong code is refused and says so; then the right one.
        code = served.code()
        wrong = "000000" if code != "000000" else "111111"
        driver.find_element(By.ID, "code").send_keys(wrong + Keys.ENTER)
        wait.until(EC.text_to_be_present_in_element((By.ID, "code-error"), "wrong"))
        code_field = driver.find_element(By.ID, "code")
        code_field.clear()
        code_field.send_keys(served.code() + Keys.ENTER)
        wait.until(EC.visibility_of_element_located((By.ID, "receipt")))
        receipt = driver.find_element(By.ID, "receipt-lines").text
        check("posted" in receipt and "148499.50 RUB" in receipt, f"the receipt shows the posting and the balance: {receipt!r}")
        wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, balance_cell), "148499.50 RUB"))
        check("1500.50 RUB" in driver.find_element(By.ID, "journal").text, "the journal lists the payment")
        if shots:
            screenshot(driver, os.path.join(shots, "receipt.png"), 1100)
        driver.find_element(By.ID, "done").click()

        basket_payments(driver, wait, served, balance_cell, shots)
        passkey_payments(driver, wait, served, balance_cell, shots)
        duplicate_payment(driver, wait, served, balance_cell)

        # The budget payment: switching the type shows fields 106–109.
        driver.find_element(By.CSS_SELECTOR, "[data-operation='pay.pp.tax']").click()
        wait.until(EC.visibility_of_element_located((By.ID, "atom-type")))
        budget = ["basis", "period", "docNumber", "docDate"]
        check(all(not driver.find_element(By.ID, "atom-" + a).is_displayed() for a in budget), "106–109 start hidden")
        Select(driver.find_element(By.ID, "atom-type")).select_by_value("1")
        for atom in budget:
            wait.until(EC.visibility_of_element_located((By.ID, "atom-" + atom)))
        Select(driver.find_element(By.ID, "atom-srcAccount")).select_by_value(served.accounts[0])
        for atom, text in [("payerStatus", "01"), ("kbk", "18210102010011000110"), ("oktmo", "45382000"), ("basis", "ТП"),
                           ("period", "МС.03.2026"), ("destName", "УФК по г. Москве"), ("destInn", "7727406020"),
                           ("destKpp", "770801001"), ("destBic", "044525225")]:
            driver.find_element(By.ID, "atom-" + atom).send_keys(text)
        wait.until(EC.text_to_be_present_in_element((By.ID, "atom-destBicInfo"), "ПАО Сбербанк"))
        driver.find_element(By.ID, "atom-destBic").send_keys(Keys.TAB)
        time.sleep(0.8)
        if shots:
            screenshot(driver, os.path.join(shots, "tax-payment.png"), 2050)
        Select(driver.find_element(By.ID, "atom-type")).select_by_value("0")
        for atom in budget:
            wait.until(EC.invisibility_of_element_located((By.ID, "atom-" + atom)))

        # Nothing the page did was refused by the content security policy, and no script failed.
        problems = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"
                    and "401" not in entry["message"] and "422" not in entry["message"]]
        check(not problems, f"the browser console has errors: {problems}")
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
