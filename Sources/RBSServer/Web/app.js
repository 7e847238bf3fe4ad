// rbs-host web client: plain JavaScript, no build step, no third-party code. Talks to /api/v1 (openapi.json).
// Every word on the page comes from the host's catalogue (GET /api/v1/messages); every value from the server's answer.
// What a person types is sent as typed: the server reads it with the same parser as the REPL and says its verdict.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  lang: "en", words: {}, runIdleMinutes: 30, me: null,
  run: null, atoms: new Map(), pending: new Map(), timers: new Map(), events: null,
  review: null, reviewRun: null, requestId: null, receipt: null, receiptRun: null, showIssues: false,
  basket: [], basketReview: null, basketRequestId: null,
  // The atoms whose field shows text the server refused (it still holds the value before): Pay waits for them.
  refused: new Set(),
  // How many screens were shown since the notice was said: it stays for the screen it leads to, then goes.
  noticeAge: 0,
};

class ProblemError extends Error {
  // An internal error's detail is the server's (its log has the cause): the customer is told, in their language, what
  // to do and the reference to quote.
  constructor(problem) {
    super(problem.type === "urn:rbs-host:problem:internal" && problem.reference
      ? t("internalError", { reference: problem.reference }) : (problem.detail || problem.title));
    this.problem = problem;
  }
}

// MARK: - Words and formats: the catalogue in the chosen language, and the one formatter of amounts and times

/// The catalogue's text for `key`, with `{name}` filled from `values`.
function t(key, values) {
  let text = Object.prototype.hasOwnProperty.call(state.words, key) ? state.words[key] : key;
  for (const [name, value] of Object.entries(values || {})) text = text.split("{" + name + "}").join(String(value));
  return text;
}

const format = {
  /// Plain decimal text from the server ("1500.50", "-12") as the language writes it: "1 500,50" (ru), "1,500.50" (en).
  /// Text only: no digit is rounded or re-read as a float.
  amount(plain, currency) {
    if (plain === null || plain === undefined || plain === "") return "";
    const text = String(plain);
    if (!/^-?\d+(\.\d+)?$/.test(text)) return currency ? text + " " + currency : text;
    const ru = state.lang === "ru";
    const negative = text.startsWith("-");
    const [whole, fraction] = text.replace(/^-/, "").split(".");
    const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ru ? "\u00a0" : ",");
    const number = (negative ? "-" : "") + grouped + (fraction !== undefined ? (ru ? "," : ".") + fraction : "");
    return currency ? number + "\u00a0" + currency : number;
  },
  /// An ISO 8601 instant as a date and time of the language, in the reader's time zone.
  time(iso) {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return iso || "";
    return new Intl.DateTimeFormat(state.lang === "ru" ? "ru-RU" : "en-GB", { dateStyle: "medium", timeStyle: "short" }).format(date);
  },
};

/// The status word of a receipt or journal line, from the catalogue.
function statusWord(kind) {
  if (kind === "posted") return t("posted");
  // A document the bank took without moving money (a card block): accepted, as the entry's details and PDF say.
  if (kind === "acknowledged") return t("accepted");
  if (kind === "rejected") return t("rejected");
  if (kind && kind.startsWith("awaiting")) return t("awaiting");
  return kind || "";
}

async function loadWords(lang) {
  const answer = await api("GET", "/messages" + (lang ? "?lang=" + encodeURIComponent(lang) : ""));
  state.lang = answer.lang;
  state.words = answer.messages;
  state.runIdleMinutes = answer.runIdleMinutes;
  document.documentElement.lang = state.lang;
  document.title = t("pageTitle");
  for (const node of document.querySelectorAll("[data-text]")) node.textContent = t(node.dataset.text);
  for (const node of document.querySelectorAll("[data-placeholder]")) node.placeholder = t(node.dataset.placeholder);
  const other = $("lang-switch");
  other.textContent = t("otherLanguageName");
  other.lang = t("otherLanguage");
}

$("lang-switch").addEventListener("click", async () => {
  localStorage.setItem("rbs-lang", t("otherLanguage"));
  await flushAll();
  await queue;
  // The open screen is restored from its address: the same form, now in the other language.
  location.reload();
});

// MARK: - Talking to the server (JSON only)

async function api(method, path, body) {
  const options = { method, credentials: "same-origin", headers: { Accept: "application/json", "Content-Type": "application/json" } };
  if (state.words.pageTitle) options.headers["Accept-Language"] = state.lang;
  if (body !== undefined) options.body = JSON.stringify(body);
  else if (method === "POST" || method === "PUT") options.body = "{}";
  let response;
  try {
    response = await fetch("/api/v1" + path, options);
  } catch (error) {
    throw new ProblemError({ title: t("networkDown"), detail: t("networkDown"), status: 0 });
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!response.ok) {
    if (response.status === 401 && path !== "/session") showLogin(t("sessionEnded"));
    throw new ProblemError(data || { title: t("serverAnswered", { status: response.status }), status: response.status });
  }
  return data;
}

function say(text) { $("notice").textContent = text; state.noticeAge = 0; }

function element(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "className") node.className = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/// A catalogue text whose NUL stands for a plugin's text (an operation's title, which plugins give in one language):
/// the plugin's part is marked, so what is the host's and what is the plugin's stays visible to a check.
function withPluginText(text, pluginText) {
  const [before, after] = text.split("\u0000");
  return [before, element("span", { "data-source": "plugin", text: pluginText }), after || ""];
}

/// A table cell that names its column on a phone, where the table's rows are stacked as cards.
function cell(label, text, className) {
  return element("td", { "data-label": label, className, text });
}

// MARK: - Logging in

function showLogin(message) {
  closeEvents();
  state.me = null;
  // Nothing of the session's notices stays above the login form (a renamed template's, a cancelled payment's).
  say("");
  $("bank").hidden = true;
  $("who").hidden = true;
  $("menu-toggle").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message || "";
  $("login-customer").focus();
}

async function showBank(me) {
  state.me = me;
  $("login").hidden = true;
  $("who").hidden = false;
  $("menu-toggle").hidden = false;
  $("who-name").textContent = me.customer;
  $("bank").hidden = false;
  showPasskey(me.passkey);
  await restoreBasket().catch(() => {});
  await loadOperations();
  openEvents();
  await route();
}

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("login-error").textContent = "";
  try {
    await api("POST", "/session", { customer: $("login-customer").value, password: $("login-password").value });
    $("login-password").value = "";
    await showBank(await api("GET", "/session"));
  } catch (error) {
    $("login-error").textContent = error.problem && error.problem.status === 401 ? t("wrongLogin") : error.message;
    $("login-password").value = "";
    $("login-password").focus();
  }
});

$("logout").addEventListener("click", async () => {
  try { await api("DELETE", "/session"); } catch (e) { /* already out */ }
  forgetRun();
  state.basket = [];
  keepBasket();
  history.replaceState(null, "", "#/");
  showLogin(t("loggedOut"));
});

// MARK: - Screens, each with its own address: #/ · #/run/ID · #/run/ID/field/ATOM · #/run/ID/review · #/run/ID/receipt

function parseRoute() {
  // The places of the bank: #/history?q=…, #/history/N (one entry), #/statement?account=…, #/templates, #/cards.
  const place = /^#\/(history|statement|templates|cards)(?:\/(\d+))?(?:\?(.*))?$/.exec(location.hash);
  if (place) {
    const screen = place[1] === "history" && place[2] ? "entry" : place[1];
    return { screen, entry: place[2] ? Number(place[2]) : null, query: new URLSearchParams(place[3] || "") };
  }
  const match = /^#\/run\/([0-9a-f]{1,64})(?:\/(review|receipt|field\/([^/]+)))?$/.exec(location.hash);
  if (!match) return { screen: "home" };
  const screen = match[2] === "review" ? "review" : match[2] === "receipt" ? "receipt" : "run";
  return { screen, run: match[1], field: match[3] ? decodeURIComponent(match[3]) : null };
}

/// Opens the screen at `hash` as a new entry of the history (Back returns), or in place of the current one.
function go(hash) { if (location.hash !== hash) history.pushState(null, "", hash); return route(); }
function redirect(hash) { history.replaceState(null, "", hash); route(); }

const SCREENS = ["home", "run", "review", "receipt", "history", "entry", "statement", "templates", "cards"];

function showScreen(id) {
  for (const screen of SCREENS) $(screen).hidden = screen !== id;
  // The place on screen is marked in the menu (the entry's details belong to the history).
  const place = id === "entry" ? "history" : id;
  for (const link of document.querySelectorAll("[data-place]")) {
    if (link.dataset.place === place) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  window.scrollTo(0, 0);
}

let routing = Promise.resolve();
window.addEventListener("hashchange", () => { route(); });

/// Shows the screen of the address; one at a time, in order.
function route() {
  routing = routing.then(routeNow, routeNow);
  return routing;
}

async function routeNow() {
  if (!state.me) return;
  closeMenu();
  // A notice is about the screen it was said on or led to ("Cancelled: nothing was signed" after a cancel, on the
  // home screen): the next screen after that clears it (it stayed through two signed payments and a card block).
  if (++state.noticeAge > 1) $("notice").textContent = "";
  const where = parseRoute();
  try {
    if (where.screen === "home") return await showHome();
    if (where.screen === "history") return await showHistory(where.query);
    if (where.screen === "entry") return await showEntry(where.entry);
    if (where.screen === "statement") return await showStatement(where.query);
    if (where.screen === "templates") return await showTemplates();
    if (where.screen === "cards") return await showCards();
    if (where.screen === "receipt") return await showReceiptScreen(where.run);
    const run = await loadRun(where.run);
    if (!run) return;
    if (run.state === "signed") { redirect("#/run/" + run.id + "/receipt"); return; }
    if (where.screen === "review") return await showReviewScreen(run);
    showFormScreen(where.field);
  } catch (error) {
    say(error.message);
  }
}

/// The run of the address: the one on screen, or the server's (a reload resumes it). Gone: back home, saying why.
async function loadRun(id) {
  if (state.run && state.run.id === id) return state.run;
  try {
    const run = await api("GET", "/runs/" + id);
    if (run.state !== "signed") renderForm(run);
    else state.run = null;
    return run;
  } catch (error) {
    if (error.problem && error.problem.status === 404) {
      forgetRun();
      say(t("runGone", { minutes: state.runIdleMinutes }));
      redirect("#/");
      return null;
    }
    throw error;
  }
}

// MARK: - Home: operations, open forms, accounts, history

function closeMenu() {
  $("ops-nav").classList.remove("open");
  $("menu-toggle").setAttribute("aria-expanded", "false");
}

$("menu-toggle").addEventListener("click", () => {
  const open = !$("ops-nav").classList.contains("open");
  $("ops-nav").classList.toggle("open", open);
  $("menu-toggle").setAttribute("aria-expanded", String(open));
  if (open) { const first = $("ops-nav").querySelector("button, a"); if (first) first.focus(); }
});

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && $("ops-nav").classList.contains("open")) { closeMenu(); $("menu-toggle").focus(); }
});

// The place already on screen chosen again from the menu: no hashchange comes, so the menu is closed and the place
// shown afresh here (else the open menu would stay over it on a phone).
$("ops-nav").addEventListener("click", (event) => {
  const link = event.target.closest("a[data-place]");
  if (!link || link.getAttribute("href") !== location.hash) return;
  event.preventDefault();
  route();
});

async function showHome() {
  showScreen("home");
  showBasket();
  await Promise.all([loadAccounts(), loadJournal(), loadResume()]);
  if (!$("main").contains(document.activeElement) || document.activeElement.offsetParent === null) $("main").focus({ preventScroll: true });
}

async function loadOperations() {
  const list = $("operations");
  list.replaceChildren();
  state.operationTitles = new Map();
  for (const operation of await api("GET", "/operations")) {
    state.operationTitles.set(operation.id, operation.title);
    const button = element("button", { type: "button", "data-operation": operation.id },
      element("span", { text: operation.title, "data-source": "plugin" }), element("small", { text: operation.category, "data-source": "plugin" }));
    button.addEventListener("click", () => openRun(operation.id));
    list.append(element("li", {}, button));
  }
}

/// The customer's open forms (not in the basket): a reload or another tab leaves them, and they can be resumed.
async function loadResume() {
  const inBasket = new Set(state.basket.map((item) => item.run));
  const runs = (await api("GET", "/runs")).filter((run) => (run.state === "open" || run.state === "review") && !inBasket.has(run.id));
  // Each names what its form holds (the server's one-line summary: amounts, then the payee or purpose typed), or when it
  // was last used while nothing is filled in, so two open forms of one operation are never two identical links.
  $("resume").replaceChildren(...runs.map((run) => element("li", {},
    element("a", { href: "#/run/" + run.id, className: "resume-link", "data-run": run.id },
      ...withPluginText(t("continueRun", { title: "\u0000" }), run.title),
      element("small", { className: "resume-summary", "data-source": run.summary ? "value" : undefined,
                         text: run.summary || format.time(run.lastUsedAt) })))));
}

async function loadAccounts() {
  const body = $("accounts").tBodies[0];
  const accounts = await api("GET", "/accounts");
  body.replaceChildren(...accounts.map((account) => element("tr", { "data-account": account.number },
    cell(t("account"), account.number, "account-number"),
    cell(t("accountTitle"), account.title + (account.blocked ? " (" + t("blocked") + ")" : "")),
    cell(t("balance"), format.amount(account.balance, account.currency), "num"))));
}

async function loadJournal() {
  const body = $("journal").tBodies[0];
  const lines = (await api("GET", "/journal")).reverse();
  $("journal-empty").hidden = lines.length > 0;
  $("journal").hidden = lines.length === 0;
  body.replaceChildren(...lines.map((line) => element("tr", {},
    cell(t("entry"), String(line.sequence)),
    cell(t("outcome"), statusWord(line.kind) + (line.reason ? ": " + (line.reasonText || line.reason) : ""), line.kind),
    cell(t("debitCredit"), line.debit ? line.debit + " → " + line.credit
      : (state.operationTitles && state.operationTitles.get(line.operation)) || "—", line.debit ? "account-number" : ""),
    cell(t("amount"), line.amount ? format.amount(line.amount, line.currency) : "", "num"),
    cell(t("time"), format.time(line.recordedAt)))));
}

// MARK: - History: the customer's journal searched by the server (payee, purpose, amount; account, period, outcome)

/// `?key=value&…` for the API, each part percent-encoded (a space as %20: the server reads "+" as itself).
function apiQuery(params) {
  const parts = [...params.entries()].map(([key, value]) => encodeURIComponent(key) + "=" + encodeURIComponent(value));
  return parts.length ? "?" + parts.join("&") : "";
}

/// The server's query for a period of days as the person typed them (ДД.ММ.ГГГГ, or YYYY-MM-DD): the core's date
/// parser reads them on the server, each a whole day in the person's own time zone (`tz`).
function periodQuery(query, from, to) {
  if (from) query.set("from", from);
  if (to) query.set("to", to);
  if (from || to) {
    try { query.set("tz", Intl.DateTimeFormat().resolvedOptions().timeZone || ""); } catch (e) { /* the server's UTC days */ }
  }
  return query;
}

/// Fills an account picker with the customer's accounts (the first option: `first`, or none).
async function fillAccounts(select, first, chosen) {
  const accounts = await api("GET", "/accounts");
  const options = accounts.map((a) => element("option", { value: a.number, text: a.number + " — " + a.title }));
  select.replaceChildren(...(first ? [element("option", { value: "", text: first })] : []), ...options);
  select.value = chosen || (first ? "" : (accounts[0] || {}).number || "");
  return accounts;
}

async function showHistory(query) {
  showScreen("history");
  // The search and filters take a phone's whole screen: folded there (the list first), open from 800 px.
  $("history-filters").open = window.matchMedia("(min-width: 800px)").matches;
  $("history-error").textContent = "";
  $("history-q").value = query.get("q") || "";
  $("history-from").value = query.get("from") || "";
  $("history-to").value = query.get("to") || "";
  $("history-status").replaceChildren(...[["", t("anyStatus")], ["posted", t("posted")], ["rejected", t("rejected")],
    ["awaiting-second-signature", t("awaiting")]].map(([value, text]) => element("option", { value, text })));
  $("history-status").value = query.get("status") || "";
  await fillAccounts($("history-account"), t("allAccounts"), query.get("account"));
  const ask = new URLSearchParams();
  for (const key of ["q", "account", "status"]) if (query.get(key)) ask.set(key, query.get(key));
  periodQuery(ask, query.get("from"), query.get("to"));
  let lines = [];
  try {
    lines = (await api("GET", "/journal" + apiQuery(ask))).reverse();
  } catch (error) {
    if (showPeriodError(error, "history")) return;
    $("history-error").textContent = error.message;
  }
  $("history-found").textContent = lines.length ? t("found", { count: lines.length }) : t("noneFound");
  $("history-list").hidden = lines.length === 0;
  $("history-list").tBodies[0].replaceChildren(...lines.map((line) => element("tr", { "data-entry": line.sequence },
    cell(t("time"), format.time(line.recordedAt)),
    // A document with no payee (a card block) is named by its operation, not left a blank row with "—".
    element("td", { "data-label": t("payee"), className: "free-text" }, element("span", { "data-source": line.payee ? "value" : "plugin",
      text: line.payee || (state.operationTitles && state.operationTitles.get(line.operation)) || "—" })),
    element("td", { "data-label": t("purpose"), className: "free-text" }, element("span", { "data-source": "value", text: line.purpose || "" })),
    cell(t("amount"), line.amount ? format.amount(line.amount, line.currency) : "", "num"),
    cell(t("outcome"), statusWord(line.kind), line.kind === "rejected" ? "rejected" : line.kind === "posted" || line.kind === "acknowledged" ? "posted" : ""),
    element("td", { "data-label": t("details") }, element("a", { href: "#/history/" + line.sequence, className: "details-link" },
      element("span", { text: t("details") }), element("span", { className: "visually-hidden", text: " " + t("entryNumber", { entry: line.sequence }) }))))));
  if (!$("main").contains(document.activeElement) || document.activeElement.offsetParent === null) $("history-title").focus();
}

$("history-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const query = new URLSearchParams();
  for (const [key, id] of [["q", "history-q"], ["account", "history-account"], ["from", "history-from"], ["to", "history-to"], ["status", "history-status"]]) {
    const value = $(id).value.trim();
    if (value) query.set(key, value);
  }
  go("#/history" + (query.toString() ? "?" + query : ""));
});

/// One entry's details: the sections the server presents (the same as `journal show` and the receipts).
async function showEntry(sequence) {
  showScreen("entry");
  $("entry-error").textContent = "";
  state.entry = null;
  let line;
  try {
    [line] = await api("GET", "/journal/" + sequence);
  } catch (error) {
    $("entry-title").textContent = t("entryNumber", { entry: sequence });
    $("entry-sections").replaceChildren();
    $("entry-error").textContent = error.message;
    $("entry-repeat").hidden = true;
    $("entry-pdf").hidden = true;
    document.querySelector("#entry .template-save").hidden = true;
    $("entry-title").focus();
    return;
  }
  state.entry = line;
  $("entry-title").textContent = line.title || t("entryNumber", { entry: sequence });
  $("entry-sections").replaceChildren(...(line.sections || []).map((section) => element("section", { className: "entry-section" },
    element("h2", { text: section.title }),
    element("dl", { className: "lines" }, ...section.rows.flatMap((row) => [element("dt", { text: row.label }),
      element("dd", { className: "wide" + (/^[0-9a-f]{64}$/.test(row.value) ? " hash" : ""), text: row.value, "data-source": "value" })])))));
  $("entry-repeat").hidden = !line.operation;
  showReceiptLink($("entry-pdf"), line.sequence, line.kind === "posted" || line.kind === "acknowledged");
  const saver = document.querySelector("#entry .template-save");
  saver.hidden = !line.operation;
  renderTemplateSaver(saver, () => ({ entry: line.sequence }));
  $("entry-title").focus();
}

$("entry-repeat").addEventListener("click", async () => {
  if (!state.entry) return;
  $("entry-error").textContent = "";
  try {
    const run = await api("POST", "/journal/" + state.entry.sequence + "/repeat");
    openedRun(run);
  } catch (error) {
    $("entry-error").textContent = error.message;
  }
});

/// The link to an entry's receipt as a PDF (only an entry the bank took has a receipt), in the page's language.
function showReceiptLink(link, sequence, taken) {
  link.hidden = !taken;
  link.href = "/api/v1/journal/" + sequence + "/receipt.pdf" + apiQuery(new URLSearchParams({ lang: state.lang }));
  link.setAttribute("download", "receipt-" + sequence + ".pdf");
}

/// A day of the period the server could not read, or a period that ends before it starts: said in the page's words
/// next to the field it is about (`screen`-from or `screen`-to), which is marked; false for any other problem.
function showPeriodError(error, screen) {
  const problem = error.problem || {};
  if (problem.type !== "urn:rbs-host:problem:bad-query" || !["from", "to"].includes(problem.atom)) return false;
  const field = $(screen + "-" + problem.atom);
  const reversed = problem.atom === "to" && /before or when it starts/.test(problem.detail || "");
  $(screen + "-error").textContent = reversed ? t("periodReversed") : t("notADay", { text: field.value });
  field.setAttribute("aria-invalid", "true");
  field.addEventListener("input", () => field.removeAttribute("aria-invalid"), { once: true });
  // Nothing was searched: the list says nothing found only after a search.
  if (screen === "history") { $("history-found").textContent = ""; $("history-list").hidden = true; }
  if ($(screen + "-filters")) $(screen + "-filters").open = true;
  field.focus();
  return true;
}

// MARK: - Statement of an account for a period, and its PDF

async function showStatement(query) {
  showScreen("statement");
  $("statement-error").textContent = "";
  $("statement-from").value = query.get("from") || "";
  $("statement-to").value = query.get("to") || "";
  const accounts = await fillAccounts($("statement-account"), null, query.get("account"));
  const account = query.get("account");
  $("statement-result").hidden = true;
  if (!account) {
    if (!accounts.length) $("statement-error").textContent = t("noAccounts");
    $("statement-title").focus();
    return;
  }
  const ask = periodQuery(new URLSearchParams(), query.get("from"), query.get("to"));
  let statement;
  try {
    statement = await api("GET", "/accounts/" + encodeURIComponent(account) + "/statement" + apiQuery(ask));
  } catch (error) {
    if (!showPeriodError(error, "statement")) $("statement-error").textContent = error.message;
    $("statement-title").focus();
    return;
  }
  const money = (value) => format.amount(value, statement.currency);
  $("statement-heading").textContent = t("statementOf", { account: statement.account, title: statement.title });
  // A day as typed (ДД.ММ.ГГГГ or YYYY-MM-DD; the server read it already) written as the language writes days.
  const day = (value) => {
    const dotted = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(value || "");
    const date = new Date((dotted ? dotted[3] + "-" + dotted[2] + "-" + dotted[1] : value) + "T00:00");
    return Number.isNaN(date.getTime()) ? value || "" : new Intl.DateTimeFormat(state.lang === "ru" ? "ru-RU" : "en-GB", { dateStyle: "medium" }).format(date);
  };
  $("statement-totals").tBodies[0].replaceChildren(...[
    [t("period"), (query.get("from") ? day(query.get("from")) : t("sinceOpening")) + " – " + (query.get("to") ? day(query.get("to")) : t("untilNow")), ""],
    [t("openingBalance"), money(statement.opening), "num"],
    [t("totalDebit", { count: statement.totals.debits }), money(statement.totals.debit), "num"],
    [t("totalCredit", { count: statement.totals.credits }), money(statement.totals.credit), "num"],
    [t("closingBalance"), money(statement.closing), "num prominent"],
  ].map(([label, value, className]) => element("tr", {}, element("th", { scope: "row", text: label }), element("td", { className, text: value }))));
  $("statement-empty").hidden = statement.lines.length > 0;
  $("statement-lines").hidden = statement.lines.length === 0;
  $("statement-lines").tBodies[0].replaceChildren(...statement.lines.map((line) => element("tr", {},
    cell(t("time"), format.time(line.postedAt)),
    // A fee's line (kind "fee") goes to the bank's fee income account: named as the bank's fee. The name may wrap
    // anywhere; the account number never.
    element("td", { "data-label": t("counterparty"), className: "free-text" }, ...[line.kind === "fee" ? t("fee") : line.counterparty.name,
      line.counterparty.account].filter(Boolean).map((text, index, all) => element("span", { "data-source": "value",
        className: index === all.length - 1 && text === line.counterparty.account ? "account-number" : null,
        text: text + (index < all.length - 1 ? ", " : "") }))),
    element("td", { "data-label": t("purpose"), className: "free-text" }, element("span", { "data-source": "value", text: line.purpose })),
    cell(t("amount"), (line.direction === "credit" ? "+" : "") + money(line.amount), "num " + line.direction),
    cell(t("balance"), money(line.balance), "num"))));
  const pdf = new URLSearchParams(ask);
  pdf.set("lang", state.lang);
  try { pdf.set("tz", Intl.DateTimeFormat().resolvedOptions().timeZone || ""); } catch (e) { /* the server's zone */ }
  $("statement-pdf").href = "/api/v1/accounts/" + encodeURIComponent(account) + "/statement.pdf" + apiQuery(pdf);
  $("statement-pdf").setAttribute("download", "statement-" + account + ".pdf");
  $("statement-result").hidden = false;
  $("statement-heading").setAttribute("tabindex", "-1");
  $("statement-heading").focus();
}

$("statement-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const query = new URLSearchParams();
  for (const [key, id] of [["account", "statement-account"], ["from", "statement-from"], ["to", "statement-to"]]) {
    const value = $(id).value.trim();
    if (value) query.set(key, value);
  }
  go("#/statement?" + query);
});

// MARK: - Templates: the customer's own, saved from a form, a receipt or an entry; listed, renamed, deleted, run

/// The "save as template" block under a form, a receipt or an entry: a name and a button; `source()` names what is
/// kept (`{run}` an open form's values, `{entry}` the form a journal entry was signed from).
function renderTemplateSaver(container, source) {
  const id = "template-name-" + container.dataset.sourceKind;
  const input = element("input", { id, name: "template-name", autocomplete: "off", maxlength: "64", spellcheck: "false",
    "aria-describedby": id + "-hint " + id + "-error" });
  const error = element("p", { className: "error", id: id + "-error", role: "alert" });
  const done = element("p", { className: "posted", role: "status" });
  const form = element("form", { novalidate: true },
    element("div", { className: "field" }, element("label", { for: id, text: t("templateName") }), input,
      element("p", { className: "hint", id: id + "-hint", text: t("templateNameHint") })),
    element("button", { type: "submit", className: "secondary", text: t("saveTemplate") }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    done.textContent = "";
    const body = Object.assign({ name: input.value.trim() }, source());
    try {
      // The form's last typing reaches the server first: the template keeps what is on screen.
      if (body.run) { await flushAll(); await queue; }
      const saved = await api("POST", "/templates", body);
      input.value = "";
      input.setAttribute("aria-invalid", "false");
      done.textContent = t("templateSaved", { name: saved.name });
    } catch (problem) {
      error.textContent = problem.message;
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  });
  container.replaceChildren(element("h2", { text: t("saveTemplateTitle") }), form, error, done);
}

async function showTemplates() {
  showScreen("templates");
  $("templates-error").textContent = "";
  let list = [];
  try { list = await api("GET", "/templates"); } catch (error) { $("templates-error").textContent = error.message; }
  $("templates-empty").hidden = list.length > 0;
  $("templates-list").replaceChildren(...list.map(templateItem));
  if (!$("main").contains(document.activeElement) || document.activeElement.offsetParent === null) $("templates-title").focus();
}

/// One template: its name and operation, and its actions (each button names the template to a screen reader).
function templateItem(template) {
  const name = template.name;
  const named = (key) => [element("span", { text: t(key) }), element("span", { className: "visually-hidden", text: " " + name, "data-source": "value" })];
  const error = element("p", { className: "error", role: "alert" });
  const run = element("button", { type: "button", "data-template-run": name }, ...named("templateRun"));
  const rename = element("button", { type: "button", className: "secondary", "data-template-rename": name, "aria-expanded": "false" }, ...named("rename"));
  const remove = element("button", { type: "button", className: "secondary", "data-template-delete": name }, ...named("delete"));
  const id = "rename-" + name.replace(/[^A-Za-z0-9_-]/g, (c) => "_" + c.codePointAt(0));
  const input = element("input", { id, value: name, autocomplete: "off", maxlength: "64", spellcheck: "false" });
  const renameForm = element("form", { novalidate: true, hidden: true, className: "rename-form" },
    element("label", { for: id, text: t("renameTo", { name }) }), input,
    element("div", { className: "actions" }, element("button", { type: "submit", text: t("saveName") })));
  run.addEventListener("click", async () => {
    error.textContent = "";
    try { openedRun(await api("POST", "/templates/" + encodeURIComponent(name) + "/run")); } catch (problem) { error.textContent = problem.message; }
  });
  rename.addEventListener("click", () => {
    renameForm.hidden = !renameForm.hidden;
    rename.setAttribute("aria-expanded", String(!renameForm.hidden));
    if (!renameForm.hidden) { input.focus(); input.select(); }
  });
  renameForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    try {
      const renamed = await api("PUT", "/templates/" + encodeURIComponent(name), { name: input.value.trim() });
      say(t("templateRenamed", { name, newName: renamed.name }));
      await showTemplates();
      const button = document.querySelector(`[data-template-rename="${CSS.escape(renamed.name)}"]`);
      if (button) button.focus();
    } catch (problem) {
      error.textContent = problem.message;
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  });
  remove.addEventListener("click", async () => {
    error.textContent = "";
    try {
      await api("DELETE", "/templates/" + encodeURIComponent(name));
      say(t("templateDeleted", { name }));
      await showTemplates();
      $("templates-title").focus();
    } catch (problem) {
      error.textContent = problem.message;
    }
  });
  return element("li", { "data-template": name },
    element("p", { className: "template-name", text: name, "data-source": "value" }),
    element("p", { className: "template-operation" }, ...withPluginText(t("templateOf", { title: "\u0000", count: template.values.length }), template.title)),
    element("div", { className: "actions" }, run, rename, remove), renameForm, error);
}

// MARK: - Cards: the customer's own, with their states (the core decides whose card may be blocked)

async function showCards() {
  showScreen("cards");
  $("cards-error").textContent = "";
  let list = [];
  try { list = await api("GET", "/cards"); } catch (error) { $("cards-error").textContent = error.message; }
  $("cards-empty").hidden = list.length > 0;
  $("cards-list").replaceChildren(...list.map(cardItem));
  if (!$("main").contains(document.activeElement) || document.activeElement.offsetParent === null) $("cards-title").focus();
}

const CARD_REASONS = { lost: "cardReasonLost", stolen: "cardReasonStolen", compromised: "cardReasonCompromised", other: "cardReasonOther" };

/// One card: its masked number, its account and state, and the one action its state allows — a run of card.block or
/// card.unblock with the card filled in, checked and signed on the usual screens.
function cardItem(card) {
  const blocked = card.state === "blocked";
  const error = element("p", { className: "error", role: "alert" });
  const reason = card.blockReason ? t(CARD_REASONS[card.blockReason] || "cardReasonOther") : t("cardReasonOther");
  const state = blocked
    ? (card.changedAtMilliseconds ? t("cardBlockedWhy", { time: format.time(new Date(card.changedAtMilliseconds).toISOString()), reason }) : t("cardBlocked"))
    : t("cardActive");
  const action = element("button", { type: "button", className: blocked ? "secondary" : "", "data-card-action": card.masked },
    element("span", { text: t(blocked ? "unblockCard" : "blockCard") }),
    element("span", { className: "visually-hidden", text: " " + card.masked, "data-source": "value" }));
  action.addEventListener("click", async () => {
    error.textContent = "";
    try {
      const run = await api("POST", "/runs", { operation: blocked ? "card.unblock" : "card.block" });
      await api("PUT", "/runs/" + run.id + "/atoms/cardNumber", { value: card.masked });
      openedRun(await api("GET", "/runs/" + run.id));
    } catch (problem) {
      error.textContent = problem.message;
    }
  });
  return element("li", { "data-card": card.masked, "data-state": card.state },
    element("p", { className: "template-name card-number", text: card.masked, "data-source": "value" }),
    element("p", { className: "template-operation" }, element("span", { text: t("cardOn", { account: card.account }) })),
    element("p", { className: blocked ? "card-state blocked" : "card-state", text: state }),
    element("div", { className: "actions" }, action), error);
}

// MARK: - A run: the form

async function openRun(operation) {
  closeMenu();
  try {
    openedRun(await api("POST", "/runs", { operation }));
  } catch (error) {
    say(error.message);
  }
}

/// A run the server opened (empty, from a template, or repeating an entry): its form on screen, and what of a
/// template or entry could not be filled in said above it.
function openedRun(run) {
  renderForm(run);
  const notes = (run.dropped || []).map((atom) => t("valueDropped", { field: atom }))
    .concat((run.refused || []).map((issue) => issue.message));
  if (notes.length) say(notes.join(" "));
  go("#/run/" + run.id);
}

function renderForm(run) {
  state.run = run;
  state.review = null;
  state.reviewRun = null;
  state.showIssues = false;
  state.atoms.clear();
  state.pending.clear();
  state.refused.clear();
  $("run-title").textContent = run.title;
  $("run-title").dataset.source = "plugin";
  $("run-expiry").textContent = t("runExpiry", { minutes: state.runIdleMinutes });
  $("form-error").textContent = run.formError || "";
  $("run-qr-note").hidden = true;
  $("error-summary").hidden = true;
  const container = $("atoms");
  container.replaceChildren();
  // The plugin's own submit button replaces the generic one.
  $("submit").hidden = run.atoms.some((atom) => atom.kind === "button" && atom.submit);
  for (const atom of run.atoms) {
    const view = renderAtom(atom);
    container.append(view);
    state.atoms.set(atom.id, { atom, view });
  }
  renderTemplateSaver(document.querySelector("#run .template-save"), () => ({ run: state.run.id }));
}

function showFormScreen(field) {
  showScreen("run");
  const entry = field && state.atoms.get(field);
  const control = entry && controlOf(entry);
  if (control && !entry.view.hidden) { control.focus(); control.scrollIntoView({ block: "center" }); }
  else $("run-title").focus();
}

function controlId(atom) { return "atom-" + atom.id; }
function controlOf(entry) { return entry.view.querySelector("#" + CSS.escape(controlId(entry.atom))); }

function renderAtom(atom) {
  const id = controlId(atom);
  const wrapper = element("div", { className: "atom", "data-atom": atom.id, "data-kind": atom.kind });
  const describedBy = [];
  // The plugin's own words (captions, hints, its buttons) are marked as the plugin's: they are in its language.
  const hint = atom.hint ? element("p", { className: "hint", id: id + "-hint", text: atom.hint, "data-source": "plugin" }) : null;
  if (hint) describedBy.push(id + "-hint");
  const error = element("p", { className: "error", id: id + "-error" });
  describedBy.push(id + "-error");
  let control = null;
  switch (atom.kind) {
    case "text":
      wrapper.append(element("p", { className: "atom-text", id, text: atom.caption, "data-source": "plugin" }));
      break;
    case "button": {
      // A button flagged "submit" is the form's submit (to the review); others call the plugin's action.
      control = element("button", { type: atom.submit ? "submit" : "button", id, className: atom.submit ? null : "secondary", text: atom.caption,
        "data-source": "plugin" });
      if (!atom.submit) control.addEventListener("click", () => press(atom.id));
      wrapper.append(control);
      break;
    }
    case "toggle": {
      control = element("input", { type: "checkbox", id, "aria-describedby": describedBy.join(" ") });
      control.addEventListener("change", () => commit(atom.id, control.checked));
      wrapper.append(element("label", { className: "check", for: id }, control,
        element("span", { className: "caption", text: atom.caption, "data-source": "plugin" })));
      break;
    }
    case "enum":
    case "account": {
      control = element("select", { id, "aria-describedby": describedBy.join(" "), "aria-required": atom.optional ? null : "true" });
      wrapper.append(element("label", { for: id, className: "caption", text: atom.caption, "data-source": "plugin" }), control);
      control.addEventListener("change", () => commit(atom.id, control.value));
      break;
    }
    default: {
      const modes = { digits: "numeric", number: "decimal", amount: "decimal" };
      control = element("input", {
        id, type: atom.secret ? "password" : "text", inputmode: modes[atom.inputType] || null,
        maxlength: atom.maxLength || null, autocomplete: "off", "aria-describedby": describedBy.join(" "),
        "aria-required": atom.optional ? null : "true", spellcheck: "false",
      });
      const label = element("label", { for: id, className: "caption", text: atom.caption, "data-source": "plugin" });
      wrapper.append(label, control);
      // Dependencies are live: each pause in typing commits the text as typed, and the fields that depend on it update.
      control.addEventListener("input", () => schedule(atom.id, () => commit(atom.id, control.value)));
      control.addEventListener("change", () => flush(atom.id));
      if (atom.inputType === "amount") wrapper.append(element("p", { className: "verdict", id: id + "-verdict" }));
    }
  }
  if (hint) wrapper.append(hint);
  wrapper.append(error);
  update(wrapper, atom, true, false);
  return wrapper;
}

/// Brings an atom's view up to date. What the person typed in a field is never rewritten (`typed`): the server's
/// reading of it is shown beside it (an amount as the language writes it), or its refusal.
function update(wrapper, atom, initial, typed) {
  wrapper.hidden = !atom.visible;
  const control = wrapper.querySelector("#" + CSS.escape(controlId(atom)));
  const caption = wrapper.querySelector(".caption");
  if (atom.kind === "text" && control) control.textContent = atom.caption;
  else if (caption) caption.textContent = atom.caption;
  if (control && atom.kind === "enum") fillOptions(control, atom.options.map((o) => [o.value, o.title]), atom.value);
  if (control && atom.kind === "account") {
    fillOptions(control, atom.accounts.map((a) => [a.number, a.number + " — " + a.title + " — " + format.amount(a.balance, a.currency)]), atom.value);
  }
  if (control && atom.kind === "toggle") control.checked = atom.value === true;
  if (control && atom.kind === "input" && !typed && (initial || document.activeElement !== control)) control.value = atom.value;
  // A text the form changed (its spaces trimmed, a payee's first letter capitalised by the plugin) is shown as it will
  // be signed once the person has left the field; an amount keeps the person's spelling, its verdict beside it.
  if (control && atom.kind === "input" && typed && ["text", "digits"].includes(atom.inputType) && !atom.error
      && document.activeElement !== control && control.value !== atom.value) control.value = atom.value;
  const verdict = wrapper.querySelector(".verdict");
  if (verdict) verdict.textContent = atom.value && !atom.error ? "= " + format.amount(atom.value, atom.currency) : "";
  setError(wrapper, atom, atom.error || "");
}

function setError(wrapper, atom, message) {
  wrapper.querySelector(".error").textContent = message;
  const control = wrapper.querySelector("#" + CSS.escape(controlId(atom)));
  if (control && control.tagName !== "BUTTON") control.setAttribute("aria-invalid", message ? "true" : "false");
  if (state.showIssues) showSummary();
}

function fillOptions(select, options, value) {
  const wanted = JSON.stringify(options);
  if (select.dataset.options !== wanted) {
    select.replaceChildren(element("option", { value: "", text: "—" }), ...options.map(([v, t]) => element("option", { value: v, text: t })));
    select.dataset.options = wanted;
  }
  select.value = value || "";
}

function schedule(id, action) {
  clearTimeout(state.timers.get(id));
  state.pending.set(id, action);
  state.timers.set(id, setTimeout(() => flush(id), 300));
}

function flush(id) {
  clearTimeout(state.timers.get(id));
  const action = state.pending.get(id);
  state.pending.delete(id);
  return action ? action() : Promise.resolve();
}

async function flushAll() { await Promise.all([...state.pending.keys()].map(flush)); }

let queue = Promise.resolve();

/// Commits one value as typed; commits go one after another, in the order they were made. A value that did not come
/// from the person's typing (`prefilled`: a QR code's) is shown in its field as the server holds it.
function commit(id, value, prefilled) {
  const run = state.run;
  queue = queue.then(async () => {
    if (!run || state.run !== run) return;
    try {
      apply(await api("PUT", "/runs/" + run.id + "/atoms/" + encodeURIComponent(id), { value }), prefilled ? null : id);
      state.refused.delete(id);
      // A changed value drops the review the server had built: a Forward to it submits again.
      state.reviewRun = null;
    } catch (error) {
      showAtomError(error);
    }
  });
  return queue;
}

async function press(id) {
  await flushAll();
  try { apply(await api("POST", "/runs/" + state.run.id + "/atoms/" + encodeURIComponent(id) + "/press"), null); }
  catch (error) { showAtomError(error); }
}

function showAtomError(error) {
  const atom = error.problem && error.problem.atom;
  const entry = atom && state.atoms.get(atom);
  if (entry) {
    state.refused.add(atom);
    setError(entry.view, entry.atom, error.message);
    const verdict = entry.view.querySelector(".verdict");
    if (verdict) verdict.textContent = "";
  } else {
    $("form-error").textContent = error.message;
  }
}

/// Applies the changed atoms of a commit (of `typed`, the atom the person typed in) and announces what appeared,
/// disappeared or got a new caption.
function apply(changes, typed) {
  const news = [];
  for (const atom of changes.changed) {
    const entry = state.atoms.get(atom.id);
    if (!entry) continue;
    if (atom.visible && !entry.atom.visible) news.push(t("newField", { caption: atom.caption }));
    if (!atom.visible && entry.atom.visible) news.push(t("removedField", { caption: entry.atom.caption }));
    if (atom.kind === "text" && atom.visible && atom.caption !== entry.atom.caption) news.push(atom.caption);
    entry.atom = atom;
    update(entry.view, atom, false, atom.id === typed);
  }
  // A value accepted clears the refusal shown for it, also when the atom itself did not change.
  const entry = typed && state.atoms.get(typed);
  // Its verdict too ("= 1,500.50 RUB"), which the refusal had taken away: the value it confirms is the same again.
  if (entry && !changes.changed.some((atom) => atom.id === typed)) update(entry.view, entry.atom, false, true);
  $("form-error").textContent = changes.formError || "";
  if (news.length) $("run-announce").textContent = news.join(". ");
}

/// The error summary at the top of the form: each refused field, linked to it.
function showSummary(extra) {
  const items = [];
  for (const { atom, view } of state.atoms.values()) {
    const message = view.querySelector(".error").textContent;
    if (!view.hidden && message) {
      // A message that names its field already ("required: Amount") is not prefixed with the caption again.
      const text = atom.caption && !message.includes(atom.caption) ? atom.caption + ": " + message : message;
      const link = element("a", { href: "#" + controlId(atom), text });
      link.addEventListener("click", (event) => {
        event.preventDefault();
        const control = view.querySelector("#" + CSS.escape(controlId(atom)));
        if (control) { control.focus(); control.scrollIntoView({ block: "center" }); }
      });
      items.push(element("li", {}, link));
    }
  }
  for (const message of extra || []) items.push(element("li", { text: message }));
  $("error-list").replaceChildren(...items);
  $("error-summary").hidden = items.length === 0;
}

// Enter in a field moves to the next one, as a person expects of a paper form; on the last one it reaches the
// button that goes to the review. It never submits a half-filled form.
$("run-form").addEventListener("keydown", (event) => {
  if (event.key !== "Enter" || event.target.tagName !== "INPUT" || event.target.type === "checkbox") return;
  event.preventDefault();
  const fields = [...$("run-form").querySelectorAll("input, select, button")].filter((node) => node.offsetParent !== null && !node.disabled);
  const next = fields[fields.indexOf(event.target) + 1];
  if (next) next.focus();
});

$("run-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  await flushAll();
  await queue;
  const run = state.run;
  if (!run) return;
  // A field still showing text the server refused holds its earlier value on the server: the review would show (and
  // the code sign) that one, not what the field shows. The person mends the field first.
  const refused = [...state.refused].map((id) => state.atoms.get(id)).filter((entry) => entry && !entry.view.hidden);
  if (refused.length) {
    state.showIssues = true;
    showSummary();
    const control = controlOf(refused[0]);
    if (control) { control.focus(); control.scrollIntoView({ block: "center" }); } else $("error-summary").focus();
    return;
  }
  try {
    state.review = await api("POST", "/runs/" + run.id + "/submit");
    state.reviewRun = run.id;
    state.requestId = newRequestId();
    go("#/run/" + run.id + "/review");
  } catch (error) {
    showIssues(error);
  }
});

/// A submit's refusal: each issue next to its field, the summary at the top, the focus on the first field to mend.
function showIssues(error) {
  const problem = error.problem || {};
  const issues = problem.errors || (problem.atom ? [{ atom: problem.atom, message: error.message }] : []);
  const loose = [];
  for (const issue of issues) {
    const entry = issue.atom && state.atoms.get(issue.atom);
    if (entry) setError(entry.view, entry.atom, issue.message);
    else loose.push(issue.message);
  }
  if (!issues.length) loose.push(error.message);
  state.showIssues = true;
  showSummary(loose);
  const first = issues.map((issue) => issue.atom && state.atoms.get(issue.atom)).find((entry) => entry && !entry.view.hidden);
  const control = first && controlOf(first);
  if (control) { control.focus(); control.scrollIntoView({ block: "center" }); }
  else $("error-summary").focus();
}

$("cancel").addEventListener("click", async () => {
  const run = state.run;
  forgetRun();
  if (run) {
    try { await api("DELETE", "/runs/" + run.id); } catch (e) { /* already gone */ }
    say(t("cancelled"));
  }
  redirect("#/");
});

function forgetRun() {
  state.refused.clear();
  state.run = null;
  state.review = null;
  state.reviewRun = null;
  state.atoms.clear();
  state.pending.clear();
}

// MARK: - Review (check your answers), code, receipt

/// 128 random bits as hex (crypto.getRandomValues works on plain http too, where crypto.randomUUID does not).
function newRequestId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function showReviewScreen(run) {
  if (state.reviewRun !== run.id || !state.review) {
    // A reloaded review: the form is submitted again (the server builds the same document from the kept values).
    await flushAll();
    await queue;
    try {
      state.review = await api("POST", "/runs/" + run.id + "/submit");
      state.reviewRun = run.id;
      state.requestId = newRequestId();
    } catch (error) {
      history.replaceState(null, "", "#/run/" + run.id);
      showFormScreen(null);
      showIssues(error);
      return;
    }
  }
  const review = state.review;
  showScreen("review");
  // With a fee the summary leads with what leaves the account (the amount plus the fee), the fee beside it.
  const debited = review.fee ? format.amount(review.totalDebited, review.currency) + " (" + t("fee").toLocaleLowerCase(state.lang) + " " + format.amount(review.fee, review.currency) + ")"
    : review.amount && format.amount(review.amount, review.currency);
  // A document that moves no money (a card block) is headed by what it does, as the server words it.
  $("review-summary").textContent = [debited, review.payee].filter(Boolean).join(" → ") || review.heading || "";
  $("review-fields").replaceChildren(...review.fields.map((line) => {
    const entry = line.atom && state.atoms.get(line.atom);
    const editable = entry && !entry.view.hidden && ["input", "enum", "account", "toggle"].includes(entry.atom.kind);
    // dt and dd directly in the dl (a div around them is not a list item to every checker); the grid lays them out.
    const prominent = line.prominent ? " prominent" : "";
    const row = [element("dt", { className: prominent }, line.caption),
      // A number checked digit by digit (an account, an INN) is never broken across lines.
      element("dd", { className: (/^[0-9a-f]{64}$/.test(line.value) ? "hash" : /^[0-9]{5,25}$/.test(line.value) ? "digits" : "") + prominent + (editable ? "" : " wide"), text: line.value,
        "data-source": "value" })];
    if (editable) {
      row.push(element("dd", { className: "change" }, element("a", { href: "#/run/" + run.id + "/field/" + encodeURIComponent(line.atom) },
        element("span", { text: t("change") }), element("span", { className: "visually-hidden", text: " " + line.caption }))));
    }
    return row;
  }).flat());
  const passkey = review.method === "passkey";
  $("code-field").hidden = passkey;
  $("sign").textContent = passkey ? t("signWithPasskey") : t("signAndSend");
  $("review-method").textContent = passkey ? t("signedWithPasskey") : t("signedWithCode");
  $("code").value = "";
  $("code").setAttribute("aria-invalid", "false");
  $("code-error").textContent = "";
  showDuplicate(review.duplicate);
  // A basket is signed with one one-time code; a passkey signs one document at a time.
  $("add-to-basket").hidden = passkey;
  $("review-title").focus();
}

/// The same payee, account, amount and purpose posted in the last 24 hours: the person confirms before signing.
function showDuplicate(duplicate) {
  $("duplicate").hidden = !duplicate;
  $("confirm-duplicate").checked = false;
  if (!duplicate) return;
  // An earlier payment still awaiting its second signature posts once approved: said as such, not as posted.
  $("duplicate-message").textContent = t(duplicate.status === "awaiting-second-signature" ? "duplicateAwaiting" : "duplicateEntry", { journal: duplicate.journal, time: format.time(duplicate.postedAt),
    amount: format.amount(duplicate.amount, duplicate.currency), payee: duplicate.payee || "—" });
}

$("back").addEventListener("click", () => { if (state.run) go("#/run/" + state.run.id); });

$("sign-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("code-error").textContent = "";
  const run = state.run;
  const passkey = state.review && state.review.method === "passkey";
  if (!$("duplicate").hidden && !$("confirm-duplicate").checked) {
    $("code-error").textContent = t("duplicateFirst");
    $("confirm-duplicate").focus();
    return;
  }
  try {
    // The review's hash: what the person sees is what is signed (a review made again in another window is refused).
    const body = { requestId: state.requestId, documentHash: state.review.documentHash,
      confirmDuplicate: !$("duplicate").hidden && $("confirm-duplicate").checked };
    if (passkey) body.passkey = await assertPasskey(state.review.passkey);
    else body.code = $("code").value;
    const receipt = await api("POST", "/runs/" + run.id + "/sign", body);
    state.receipt = receipt;
    state.receiptRun = run.id;
    forgetRun();
    // The receipt takes the review's place in the history: Back does not lead to a signed review.
    redirect("#/run/" + run.id + "/receipt");
  } catch (error) {
    if (error.problem && error.problem.type === "urn:rbs-host:problem:review-changed") {
      // Changed and reviewed again in another window: nothing was signed; the document as it is now replaces this
      // review, with the reason, and the person checks it before signing.
      state.review = null;
      await showReviewScreen(run);
      $("code-error").textContent = error.message;
      return;
    }
    $("code-error").textContent = error.message;
    if (error.problem && error.problem.duplicate) {
      // Posted meanwhile (another run): nothing was signed; the person decides now.
      showDuplicate(error.problem.duplicate);
      $("confirm-duplicate").focus();
      return;
    }
    if (passkey) { $("sign").focus(); return; }
    $("code").setAttribute("aria-invalid", "true");
    $("code").focus();
  }
});

async function showReceiptScreen(id) {
  let receipt = state.receiptRun === id ? state.receipt : null;
  if (!receipt) {
    try { receipt = (await api("GET", "/runs/" + id)).receipt; } catch (error) { receipt = null; }
    if (!receipt) { say(t("runGone", { minutes: state.runIdleMinutes })); redirect("#/"); return; }
    state.receipt = receipt;
    state.receiptRun = id;
  }
  showScreen("receipt");
  // The API says "posted" for a document that moved no money (its contract); without a posting it was accepted.
  const kind = receipt.status === "posted" && !receipt.posting ? "acknowledged" : receipt.status;
  const lines = [[t("status"), statusWord(kind), receipt.status], [t("journalEntry"), String(receipt.journal)]];
  // The document's rows as the server presents them (the entry's details and the PDF show the same), by the field
  // each shows: the payee, the purpose, and an exchange's credited amount and rate.
  const documentRows = (receipt.sections || []).flatMap((section) => section.rows || []);
  const shown = (field) => documentRows.filter((row) => row.field === field).map((row) => [row.label, row.value]);
  if (receipt.posting) {
    lines.push([t("from"), receipt.posting.debit, "account-number"], [t("to"), receipt.posting.credit, "account-number"],
      ...shown("name"));
    // An exchange: the amount debited under the server's own caption ("Debited"), then what was credited and at which rate.
    const amount = documentRows.find((row) => row.field === "amount");
    lines.push([amount && shown("creditAmount").length ? amount.label : t("amount"), format.amount(receipt.posting.amount, receipt.posting.currency)],
      ...shown("creditAmount"), ...shown("rate"));
    // A fee the core posted with the amount, and what left the account in all (the amount plus the fee).
    if (receipt.posting.fee) {
      lines.push([t("fee"), format.amount(receipt.posting.fee, receipt.posting.currency)],
        [t("totalDebited"), format.amount(receipt.posting.totalDebited, receipt.posting.currency)]);
    }
    lines.push([t("balanceNow"), format.amount(receipt.posting.balanceAfter, receipt.posting.currency)], ...shown("purpose"));
  } else {
    // A document that moved no money (a card block): what it acted on, as the server presents its fields (the
    // masked card, the reason's title), the rows the entry's details and the PDF show.
    lines.push(...documentRows.filter((row) => row.field).map((row) => [row.label, row.value]));
  }
  if (receipt.reason) lines.push([t("reason"), receipt.reasonText || receipt.reason]);
  lines.push([t("documentHash"), receipt.documentHash, "hash"]);
  $("receipt-lines").replaceChildren(...lines.flatMap(([term, value, className]) => [element("dt", { text: term }),
    element("dd", { className: (className || "") + " wide", text: value })]));
  renderTemplateSaver(document.querySelector("#receipt .template-save"), () => ({ entry: receipt.journal }));
  showReceiptLink($("receipt-pdf"), receipt.journal, receipt.status === "posted" || receipt.status === "acknowledged");
  $("receipt-title").focus();
}

$("done").addEventListener("click", () => go("#/"));

// MARK: - Basket: reviewed documents signed together with one code

$("add-to-basket").addEventListener("click", () => {
  // The run stays reviewed on the server; the basket names it when it is made.
  // The payee's account is found by its caption in the page's language now: kept, so another language still shows it.
  state.basket.push({ run: state.run.id, operation: state.run.operation, title: state.run.title, review: state.review,
    payeeAccount: payeeAccountOf(state.review) });
  keepBasket();
  forgetRun();
  say(t("basketAdded", { count: state.basket.length }));
  go("#/").then(() => $("basket-title").focus());
});

/// The basket outlives a reload of the tab: its runs stay reviewed on the server, and the tab keeps which they are.
function keepBasket() {
  try { sessionStorage.setItem("rbs-basket", JSON.stringify(state.basket)); } catch (e) { /* storage off: kept in memory */ }
}

/// The basket of this tab before a reload, without the runs the server no longer holds reviewed (signed, cancelled,
/// changed or expired meanwhile).
async function restoreBasket() {
  let saved = [];
  try { saved = JSON.parse(sessionStorage.getItem("rbs-basket") || "[]"); } catch (e) { saved = []; }
  if (!Array.isArray(saved) || !saved.length) return;
  const reviewed = new Set((await api("GET", "/runs")).filter((run) => run.state === "review").map((run) => run.id));
  state.basket = saved.filter((item) => item && reviewed.has(item.run) && item.review);
  keepBasket();
}

/// The payee's account a review shows, found by its caption in the page's language ("" when it shows none).
function payeeAccountOf(review) {
  return (review.fields.find((line) => line.caption === t("basketPayeeAccount")) || {}).value || "";
}

/// A basket item's operation as the page's language names it (the title kept when it was added, if the operation is gone).
function basketTitle(item) {
  return (item && state.operationTitles && state.operationTitles.get(item.operation)) || (item && item.title) || "";
}

function showBasket() {
  $("basket").hidden = state.basket.length === 0 && !$("basket-receipts").children.length;
  $("basket-review").hidden = true;
  $("basket-error").textContent = "";
  $("basket-make").hidden = state.basket.length === 0;
  $("basket-clear").hidden = state.basket.length === 0;
  $("basket-items").hidden = state.basket.length === 0;
  $("basket-items").tBodies[0].replaceChildren(...state.basket.map((item, index) => element("tr", {},
    cell(t("entry"), String(index + 1)), element("td", { "data-label": t("basketOperation") }, element("span", { "data-source": "plugin", text: basketTitle(item) })),
    cell(t("amount"), item.review.amount ? format.amount(item.review.amount, item.review.currency) : "", "num"),
    cell(t("payee"), item.review.payee || ""),
    cell(t("basketPayeeAccount"), item.payeeAccount !== undefined ? item.payeeAccount : payeeAccountOf(item.review), "account-number"))));
}

$("basket-make").addEventListener("click", async () => {
  $("basket-error").textContent = "";
  $("basket-receipts").replaceChildren();
  try {
    const review = await api("POST", "/baskets", { runs: state.basket.map((item) => item.run) });
    state.basketReview = review;
    state.basketRequestId = newRequestId();
    const pair = (term, value, className, attributes) => [element("dt", { className, text: term }),
      element("dd", Object.assign({ className: (className || "") + " wide", text: value }, attributes || {}))];
    $("basket-documents").replaceChildren(...review.documents.map((document, index) => element("dl", { className: "answers basket-document" },
      ...pair(t("entry") + " " + (index + 1), basketTitle(state.basket[index]) || document.operation, "prominent", { "data-source": "plugin" }),
      ...document.fields.flatMap((line) => pair(line.caption, line.value, line.prominent ? "prominent" : "")),
      ...(document.refusal ? pair(t("basketRefuse"), document.refusal, "rejected") : []),
      ...(document.duplicate ? pair(t("basketDuplicate"), document.duplicate.journal ? t("duplicateEntry", { journal: document.duplicate.journal,
        time: format.time(document.duplicate.postedAt), amount: format.amount(document.duplicate.amount, document.duplicate.currency),
        payee: document.duplicate.payee || "—" }) : t("basketRepeatsDocument", { document: document.duplicate.document }), "rejected") : []))));
    $("basket-totals").tBodies[0].replaceChildren(...review.totals.map((total) => element("tr", { className: "prominent" },
      element("th", { scope: "row", text: t("basketTotal", { currency: total.currency }) }),
      element("td", { className: "num", text: format.amount(total.amount, total.currency) }))));
    $("basket-id").textContent = review.basket;
    $("basket-code").value = "";
    // A repeat is sent only when the customer ticks this: the server (the core) refuses it otherwise.
    $("basket-duplicate").hidden = !review.documents.some((document) => Boolean(document.duplicate));
    $("basket-confirm-duplicate").checked = false;
    $("basket-review").hidden = false;
    $("basket-make").hidden = true;
    $("basket-review-title").focus();
  } catch (error) {
    $("basket-error").textContent = error.message;
  }
});

$("basket-sign-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("basket-error").textContent = "";
  // As for one payment: a repeat is confirmed on the page first, never with the API's words in an error.
  if (!$("basket-duplicate").hidden && !$("basket-confirm-duplicate").checked) {
    $("basket-error").textContent = t("duplicateFirst");
    $("basket-confirm-duplicate").focus();
    return;
  }
  try {
    const answer = await api("POST", "/baskets/" + state.basketReview.basket + "/sign",
      { code: $("basket-code").value, requestId: state.basketRequestId,
        confirmDuplicate: !$("basket-duplicate").hidden && $("basket-confirm-duplicate").checked });
    $("basket-receipts").replaceChildren(...answer.receipts.flatMap((receipt, index) => [
      element("dt", {}, (index + 1) + ". ", element("span", { "data-source": "plugin", text: basketTitle(state.basket[index]) })),
      element("dd", { className: receipt.status + " wide", text: statusWord(receipt.status) + " — " + t("journalEntry") + " " + receipt.journal
        + (receipt.posting ? ": " + format.amount(receipt.posting.amount, receipt.posting.currency) + " → " + receipt.posting.credit : "")
        + (receipt.reason ? ": " + (receipt.reasonText || receipt.reason) : "") })]));
    const posted = answer.receipts.filter((r) => r.status === "posted").length;
    state.basket = [];
    keepBasket();
    showBasket();
    say(t("basketSigned", { posted, count: answer.receipts.length }));
    await Promise.all([loadAccounts(), loadJournal()]);
  } catch (error) {
    if (error.problem && error.problem.type === "urn:rbs-host:problem:duplicate") {
      // A repeat posted since the review: shown like the others, then confirmed on the page.
      $("basket-duplicate").hidden = false;
      $("basket-confirm-duplicate").checked = false;
      $("basket-error").textContent = t("duplicateFirst");
      $("basket-confirm-duplicate").focus();
      return;
    }
    $("basket-error").textContent = error.message;
    $("basket-code").setAttribute("aria-invalid", "true");
    $("basket-code").focus();
  }
});

$("basket-clear").addEventListener("click", async () => {
  const runs = state.basket.map((item) => item.run);
  state.basket = [];
  keepBasket();
  $("basket-receipts").replaceChildren();
  showBasket();
  for (const run of runs) { try { await api("DELETE", "/runs/" + run); } catch (e) { /* already gone */ } }
  say(t("basketEmptied"));
  await loadResume();
});

// MARK: - Passkeys (WebAuthn): registered once, then each document is signed on this device

const base64url = {
  encode(buffer) {
    let text = "";
    for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
  decode(text) {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  },
};

function showPasskey(registered) {
  const available = Boolean(window.PublicKeyCredential && navigator.credentials);
  $("passkey-status").textContent = !available ? t("passkeyUnavailable") : registered ? t("passkeyRegistered") : t("passkeyOffer");
  $("passkey-register").hidden = !available;
  $("passkey-code-field").hidden = !available;
  $("passkey-register").textContent = registered ? t("passkeyRegisterNew") : t("passkeyRegister");
}

// The document's hash is the challenge: the assertion signs exactly the reviewed document.
async function assertPasskey(request) {
  let credential;
  try {
    credential = await navigator.credentials.get({ publicKey: {
      challenge: base64url.decode(request.challenge), rpId: request.rpId, userVerification: request.userVerification,
      allowCredentials: request.credentialIds.map((id) => ({ type: "public-key", id: base64url.decode(id) })),
    } });
  } catch (error) {
    throw new Error(t("passkeyNotSigned", { reason: error.message }));
  }
  const answer = credential.response;
  return { credentialId: base64url.encode(credential.rawId), authenticatorData: base64url.encode(answer.authenticatorData),
    clientDataJSON: base64url.encode(answer.clientDataJSON), signature: base64url.encode(answer.signature) };
}

$("passkey-register").addEventListener("click", async () => {
  $("passkey-error").textContent = "";
  // The server refuses an enrolment without the code (step-up); asking first spares the device an unused credential.
  if (!$("passkey-code").value.trim()) {
    $("passkey-error").textContent = t("passkeyCodeFirst");
    $("passkey-code").focus();
    return;
  }
  try {
    const options = await api("POST", "/passkeys/challenge");
    let credential;
    try {
      credential = await navigator.credentials.create({ publicKey: {
        challenge: base64url.decode(options.challenge), rp: { id: options.rpId, name: options.rpName },
        user: { id: base64url.decode(options.userId), name: options.userName, displayName: options.userName },
        pubKeyCredParams: options.algorithms.map((alg) => ({ type: "public-key", alg })),
        authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
        attestation: "none", timeout: options.timeoutMs,
      } });
    } catch (error) {
      throw new Error(t("passkeyNotCreated", { reason: error.message }));
    }
    await api("POST", "/passkeys", { credentialId: base64url.encode(credential.rawId),
      clientDataJSON: base64url.encode(credential.response.clientDataJSON),
      attestationObject: base64url.encode(credential.response.attestationObject), code: $("passkey-code").value });
    $("passkey-code").value = "";
    showPasskey(true);
    say(t("passkeyDone"));
  } catch (error) {
    $("passkey-error").textContent = error.message;
  }
});

// MARK: - A payment QR code (ГОСТ Р 56042-2014): the server reads it (text, or a photo through ZBar) and says what
// it opens; the values are committed like typed ones, so the form checks each and the review shows them all.

async function openFromCode(body) {
  $("qr-error").textContent = "";
  try {
    const code = await api("POST", "/qr", body);
    const run = await api("POST", "/runs", { operation: code.operation });
    renderForm(run);
    await go("#/run/" + run.id);
    for (const value of code.values) await commit(value.atom, value.value, true);
    // The code's fields no field of the form takes are shown, never dropped.
    const note = $("run-qr-note");
    note.hidden = code.shownOnly.length === 0;
    note.textContent = t("qrShownOnly", { fields: code.shownOnly.map((field) => field.field + "=" + field.value).join("; ") });
  } catch (error) {
    $("qr-error").textContent = error.message;
  }
}

$("qr-picture").addEventListener("change", async () => {
  const file = $("qr-picture").files[0];
  $("qr-picture").value = "";
  if (!file) return;
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  await openFromCode({ image: btoa(binary) });
});

$("qr-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = $("qr-text").value.trim();
  if (!text) { $("qr-error").textContent = t("qrEmpty"); return; }
  await openFromCode({ text });
});

// MARK: - Server-sent events: captions set later, reloads, shutdown

function openEvents() {
  closeEvents();
  const events = new EventSource("/api/v1/events");
  events.addEventListener("caption", (event) => {
    const data = JSON.parse(event.data);
    const entry = state.run && data.run === state.run.id && state.atoms.get(data.atom);
    if (entry && entry.atom.caption !== data.caption) {
      entry.atom = Object.assign({}, entry.atom, { caption: data.caption });
      update(entry.view, entry.atom, false, true);
      $("run-announce").textContent = data.caption;
    }
  });
  events.addEventListener("reload", (event) => {
    say(t("updated", { message: JSON.parse(event.data).message }));
    loadOperations().catch(() => {});
  });
  events.addEventListener("shutdown", (event) => {
    say(JSON.parse(event.data).message);
    events.close();
  });
  state.events = events;
}

function closeEvents() {
  if (state.events) state.events.close();
  state.events = null;
}

// MARK: - Start

// The skip link moves the focus without changing the address (the address names the screen).
$("skip").addEventListener("click", (event) => { event.preventDefault(); $("main").focus(); });

(async () => {
  try {
    await loadWords(localStorage.getItem("rbs-lang") || null);
  } catch (error) {
    $("notice").textContent = error.message;
    return;
  }
  try {
    await showBank(await api("GET", "/session"));
  } catch (error) {
    showLogin("");
  }
})();
