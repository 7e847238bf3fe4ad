// rbs-host web client: plain JavaScript, no build step, no third-party code. Talks to /api/v1 (openapi.json).
"use strict";

const $ = (id) => document.getElementById(id);
const state = { run: null, atoms: new Map(), pending: new Map(), timers: new Map(), events: null, review: null, requestId: null,
  basket: [], basketReview: null, basketRequestId: null };

class ProblemError extends Error {
  constructor(problem) { super(problem.detail || problem.title); this.problem = problem; }
}

async function api(method, path, body) {
  const options = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  // The server refuses a POST, PUT or DELETE that is not JSON (its defence against cross-site requests), body or not.
  if (method !== "GET") options.headers["Content-Type"] = "application/json";
  if (body !== undefined) options.body = JSON.stringify(body);
  const response = await fetch("/api/v1" + path, options);
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!response.ok) {
    if (response.status === 401 && path !== "/session") showLogin("Your session ended; log in again.");
    throw new ProblemError(data || { title: "Error", detail: "the server answered " + response.status, status: response.status });
  }
  return data;
}

function say(text) { $("notice").textContent = text; }

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

// MARK: - Logging in

function showLogin(message) {
  closeEvents();
  $("bank").hidden = true;
  $("who").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message || "";
  $("login-customer").focus();
}

async function showBank(me) {
  $("login").hidden = true;
  $("who").hidden = false;
  $("who-name").textContent = me.customer;
  $("bank").hidden = false;
  showPasskey(me.passkey);
  await Promise.all([loadOperations(), loadAccounts(), loadJournal()]);
  openEvents();
  $("main").focus();
}

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("login-error").textContent = "";
  try {
    const answer = await api("POST", "/session", { customer: $("login-customer").value, password: $("login-password").value });
    $("login-password").value = "";
    await showBank(await api("GET", "/session"));
  } catch (error) {
    $("login-error").textContent = error.message;
    $("login-password").value = "";
    $("login-password").focus();
  }
});

$("logout").addEventListener("click", async () => {
  try { await api("DELETE", "/session"); } catch (e) { /* already out */ }
  resetRun();
  showLogin("You are logged out.");
});

// MARK: - Operations, accounts, journal

async function loadOperations() {
  const list = $("operations");
  list.replaceChildren();
  for (const operation of await api("GET", "/operations")) {
    const button = element("button", { type: "button", "data-operation": operation.id },
      operation.title, element("small", { text: operation.category + " · " + operation.id }));
    button.addEventListener("click", () => openRun(operation.id));
    list.append(element("li", {}, button));
  }
}

async function loadAccounts() {
  const body = $("accounts").tBodies[0];
  body.replaceChildren();
  for (const account of await api("GET", "/accounts")) {
    body.append(element("tr", { "data-account": account.number },
      element("td", { text: account.number }),
      element("td", { text: account.title + (account.blocked ? " (blocked)" : "") }),
      element("td", { className: "num", text: account.balance + " " + account.currency })));
  }
}

async function loadJournal() {
  const body = $("journal").tBodies[0];
  body.replaceChildren();
  const lines = await api("GET", "/journal");
  for (const line of lines.reverse()) {
    body.append(element("tr", {},
      element("td", { text: String(line.sequence) }),
      element("td", { className: line.kind, text: line.kind + (line.reason ? ": " + line.reason : "") }),
      element("td", { text: line.debit ? line.debit + " → " + line.credit : "—" }),
      element("td", { className: "num", text: line.amount ? line.amount + " " + line.currency : "" }),
      element("td", { text: new Date(line.recordedAt).toLocaleString() })));
  }
}

// MARK: - A run: the form

async function openRun(operation) {
  if (state.run) await cancelRun(true);
  try {
    const run = await api("POST", "/runs", { operation });
    state.run = run;
    $("review").hidden = true;
    $("receipt").hidden = true;
    $("run").hidden = false;
    $("run-title").textContent = run.title;
    $("form-error").textContent = run.formError || "";
    const container = $("atoms");
    container.replaceChildren();
    state.atoms.clear();
    // The plugin's own submit button replaces the generic one.
    $("submit").hidden = run.atoms.some((atom) => atom.kind === "button" && atom.submit);
    for (const atom of run.atoms) {
      const view = renderAtom(atom);
      container.append(view);
      state.atoms.set(atom.id, { atom, view });
    }
    $("run-title").focus();
  } catch (error) {
    say(error.message);
  }
}

function controlId(atom) { return "atom-" + atom.id; }

function renderAtom(atom) {
  const id = controlId(atom);
  const wrapper = element("div", { className: "atom", "data-atom": atom.id, "data-kind": atom.kind });
  const describedBy = [];
  const hint = atom.hint ? element("p", { className: "hint", id: id + "-hint", text: atom.hint }) : null;
  if (hint) describedBy.push(id + "-hint");
  const error = element("p", { className: "error", id: id + "-error", role: "alert" });
  describedBy.push(id + "-error");
  let control = null;
  switch (atom.kind) {
    case "text":
      wrapper.append(element("p", { className: "atom-text", id, text: atom.caption }));
      break;
    case "button": {
      // A button flagged "submit" is the form's submit (to the review); others call the plugin's action.
      control = element("button", { type: atom.submit ? "submit" : "button", id, className: atom.submit ? null : "secondary", text: atom.caption });
      if (!atom.submit) control.addEventListener("click", () => press(atom.id));
      wrapper.append(control);
      break;
    }
    case "toggle": {
      control = element("input", { type: "checkbox", id, "aria-describedby": describedBy.join(" ") });
      control.addEventListener("change", () => commit(atom.id, control.checked));
      wrapper.append(element("label", { className: "check", for: id }, control, element("span", { className: "caption", text: atom.caption })));
      break;
    }
    case "enum":
    case "account": {
      control = element("select", { id, "aria-describedby": describedBy.join(" "), "aria-required": atom.optional ? null : "true" });
      wrapper.append(element("label", { for: id, className: "caption", text: atom.caption }), control);
      control.addEventListener("change", () => commit(atom.id, control.value));
      break;
    }
    default: {
      const modes = { digits: "numeric", number: "decimal", amount: "decimal" };
      control = element("input", {
        id, type: atom.secret ? "password" : "text", inputmode: modes[atom.inputType] || null,
        maxlength: atom.maxLength || null, autocomplete: "off", "aria-describedby": describedBy.join(" "),
        "aria-required": atom.optional ? null : "true",
      });
      const label = element("label", { for: id, className: "caption", text: atom.caption });
      wrapper.append(label, control);
      // Dependencies are live: each pause in typing commits, and the fields that depend on it update.
      control.addEventListener("input", () => schedule(atom.id, () => commit(atom.id, wireValue(atom, control.value))));
      control.addEventListener("change", () => flush(atom.id));
    }
  }
  if (hint) wrapper.append(hint);
  wrapper.append(error);
  update(wrapper, atom, true);
  return wrapper;
}

/// Brings an atom's view up to date; the value of the field being typed in is left alone.
function update(wrapper, atom, initial) {
  wrapper.hidden = !atom.visible;
  const control = wrapper.querySelector("#" + CSS.escape(controlId(atom)));
  const caption = wrapper.querySelector(".caption");
  if (atom.kind === "text" && control) control.textContent = atom.caption;
  else if (caption) caption.textContent = atom.caption;
  if (control && atom.kind === "enum") fillOptions(control, atom.options.map((o) => [o.value, o.title]), atom.value);
  if (control && atom.kind === "account") {
    fillOptions(control, atom.accounts.map((a) => [a.number, a.number + " — " + a.title + " — " + a.balance + " " + a.currency]), atom.value);
  }
  if (control && atom.kind === "toggle") control.checked = atom.value === true;
  if (control && atom.kind === "input" && (initial || document.activeElement !== control)) control.value = atom.value;
  const error = wrapper.querySelector(".error");
  error.textContent = atom.error || "";
  if (control && control.tagName !== "BUTTON") control.setAttribute("aria-invalid", atom.error ? "true" : "false");
}

/// What a person typed, as the protocol takes it (reading people's text is the front end's job): amounts and numbers
/// as decimal text ("1 500,50" → "1500.50"), dates as ISO 8601 ("31.03.2026" → "2026-03-31"). Anything else is sent
/// as typed, and the server says what is wrong with it.
function wireValue(atom, text) {
  const trimmed = text.trim();
  switch (atom.inputType) {
    case "amount":
    case "number": {
      const decimal = trimmed.replace(/[\s\u00a0\u202f']/g, "").replace(",", ".");
      return /^-?\d+(\.\d+)?$/.test(decimal) ? decimal : trimmed;
    }
    case "date": {
      const dotted = /^(\d{2})\.(\d{2})\.(\d{4})$/.exec(trimmed);
      return dotted ? dotted[3] + "-" + dotted[2] + "-" + dotted[1] : trimmed;
    }
    case "digits": return trimmed;
    default: return text;
  }
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

/// Commits one value; commits go one after another, in the order they were made.
function commit(id, value) {
  const run = state.run;
  queue = queue.then(async () => {
    if (!run || state.run !== run) return;
    try {
      apply(await api("PUT", "/runs/" + run.id + "/atoms/" + encodeURIComponent(id), { value }));
    } catch (error) {
      showAtomError(error);
    }
  });
  return queue;
}

async function press(id) {
  await flushAll();
  try { apply(await api("POST", "/runs/" + state.run.id + "/atoms/" + encodeURIComponent(id) + "/press")); }
  catch (error) { showAtomError(error); }
}

function showAtomError(error) {
  const atom = error.problem && error.problem.atom;
  const entry = atom && state.atoms.get(atom);
  if (entry) {
    entry.view.querySelector(".error").textContent = error.message;
    const control = entry.view.querySelector("#" + CSS.escape(controlId(entry.atom)));
    if (control) control.setAttribute("aria-invalid", "true");
  } else {
    $("form-error").textContent = error.message;
  }
}

/// Applies the changed atoms of a commit and announces what appeared, disappeared or got a new caption.
function apply(changes) {
  const news = [];
  for (const atom of changes.changed) {
    const entry = state.atoms.get(atom.id);
    if (!entry) continue;
    if (atom.visible && !entry.atom.visible) news.push("new field: " + atom.caption);
    if (!atom.visible && entry.atom.visible) news.push("removed: " + entry.atom.caption);
    if (atom.kind === "text" && atom.visible && atom.caption !== entry.atom.caption) news.push(atom.caption);
    entry.atom = atom;
    update(entry.view, atom, false);
  }
  $("form-error").textContent = changes.formError || "";
  if (news.length) $("run-announce").textContent = news.join(". ");
}

$("run-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  await flushAll();
  await queue;
  try {
    showReview(await api("POST", "/runs/" + state.run.id + "/submit"));
  } catch (error) {
    const problem = error.problem || {};
    for (const issue of problem.errors || []) {
      const entry = issue.atom && state.atoms.get(issue.atom);
      if (entry) {
        entry.view.querySelector(".error").textContent = issue.message;
        const control = entry.view.querySelector("#" + CSS.escape(controlId(entry.atom)));
        if (control) control.setAttribute("aria-invalid", "true");
      }
    }
    $("form-error").textContent = error.message;
    const first = problem.atom && state.atoms.get(problem.atom);
    const control = first && first.view.querySelector("#" + CSS.escape(controlId(first.atom)));
    if (control) control.focus();
  }
});

$("cancel").addEventListener("click", () => cancelRun(false));

async function cancelRun(quiet) {
  const run = state.run;
  resetRun();
  if (run) {
    try { await api("DELETE", "/runs/" + run.id); } catch (e) { /* already gone */ }
    if (!quiet) say("Cancelled.");
  }
}

function resetRun() {
  state.run = null;
  state.atoms.clear();
  state.pending.clear();
  $("run").hidden = true;
  $("review").hidden = true;
  $("receipt").hidden = true;
}

// MARK: - Review, code, receipt

/// 128 random bits as hex (crypto.getRandomValues works on plain http too, where crypto.randomUUID does not).
function newRequestId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function showReview(review) {
  $("run").hidden = true;
  $("review").hidden = false;
  $("review-summary").textContent = [review.amount && review.amount + " " + (review.currency || ""), review.payee].filter(Boolean).join(" → ");
  const body = $("review-fields").tBodies[0];
  body.replaceChildren(...review.fields.map((line) => element("tr", { className: line.prominent ? "prominent" : null },
    element("th", { scope: "row", text: line.caption }), element("td", { text: line.value }))));
  $("review-hash").textContent = review.documentHash;
  state.review = review;
  // One request id per reviewed document: a retry after a lost answer gets the first receipt, never a second posting.
  state.requestId = newRequestId();
  const passkey = review.method === "passkey";
  $("code-field").hidden = passkey;
  $("sign").textContent = passkey ? "Sign with passkey" : "Sign and send";
  $("review-method").textContent = passkey
    ? "Your passkey signs this document's hash: the amount and payee above, exactly."
    : "Signed with a one-time code after you check the document.";
  $("code").value = "";
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
  const amount = duplicate.amount ? duplicate.amount + " " + (duplicate.currency || "") : "";
  $("duplicate-message").textContent = "This payment repeats journal entry " + duplicate.journal + ", posted "
    + new Date(duplicate.postedAt).toLocaleString() + (amount ? " (" + amount + (duplicate.payee ? " to " + duplicate.payee : "") + ")" : "")
    + ". Send it again?";
}

$("back").addEventListener("click", () => {
  $("review").hidden = true;
  $("run").hidden = false;
  $("run-title").focus();
});

$("sign-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("code-error").textContent = "";
  const passkey = state.review && state.review.method === "passkey";
  if (!$("duplicate").hidden && !$("confirm-duplicate").checked) {
    $("code-error").textContent = "Confirm above that you want to send this payment again, or go back to the form.";
    $("confirm-duplicate").focus();
    return;
  }
  try {
    const body = { requestId: state.requestId, confirmDuplicate: !$("duplicate").hidden && $("confirm-duplicate").checked };
    if (passkey) body.passkey = await assertPasskey(state.review.passkey);
    else body.code = $("code").value.trim();
    const receipt = await api("POST", "/runs/" + state.run.id + "/sign", body);
    showReceipt(receipt);
    await Promise.all([loadAccounts(), loadJournal()]);
  } catch (error) {
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

// MARK: - Basket: reviewed documents signed together with one code

$("add-to-basket").addEventListener("click", () => {
  // The run stays reviewed on the server; the basket names it when it is made.
  state.basket.push({ run: state.run.id, title: state.run.title, review: state.review });
  state.run = null;
  state.review = null;
  $("review").hidden = true;
  showBasket();
  say("Added to the basket (" + state.basket.length + "). Open another operation, or review the basket.");
  $("basket-title").focus();
});

function showBasket() {
  $("basket").hidden = state.basket.length === 0;
  $("basket-review").hidden = true;
  $("basket-receipts").replaceChildren();
  $("basket-error").textContent = "";
  $("basket-make").hidden = false;
  $("basket-items").tBodies[0].replaceChildren(...state.basket.map((item, index) => element("tr", {},
    element("td", { text: String(index + 1) }), element("td", { text: item.title }),
    element("td", { className: "num", text: item.review.amount ? item.review.amount + " " + (item.review.currency || "") : "" }),
    element("td", { text: item.review.payee || "" }),
    element("td", { text: (item.review.fields.find((line) => line.caption === "Payee's account") || {}).value || "" }))));
}

$("basket-make").addEventListener("click", async () => {
  $("basket-error").textContent = "";
  try {
    const review = await api("POST", "/baskets", { runs: state.basket.map((item) => item.run) });
    state.basketReview = review;
    state.basketRequestId = newRequestId();
    $("basket-documents").replaceChildren(...review.documents.map((document, index) => element("table", { className: "basket-document" },
      element("caption", { text: (index + 1) + ". " + document.operation }),
      element("tbody", {}, ...document.fields.map((line) => element("tr", { className: line.prominent ? "prominent" : null },
        element("th", { scope: "row", text: line.caption }), element("td", { text: line.value }))),
        document.refusal ? element("tr", { className: "rejected" }, element("th", { scope: "row", text: "The bank would refuse it" }),
          element("td", { text: document.refusal })) : null,
        document.duplicate ? element("tr", { className: "rejected" }, element("th", { scope: "row", text: "Warning" }),
          element("td", { text: document.duplicate.message + " — signing the basket sends it again" })) : null))));
    $("basket-totals").tBodies[0].replaceChildren(...review.totals.map((total) => element("tr", { className: "prominent" },
      element("th", { scope: "row", text: "Total, " + total.currency }), element("td", { className: "num", text: total.amount + " " + total.currency }))));
    $("basket-id").textContent = review.basket;
    $("basket-code").value = "";
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
  try {
    const answer = await api("POST", "/baskets/" + state.basketReview.basket + "/sign",
      { code: $("basket-code").value.trim(), requestId: state.basketRequestId,
        confirmDuplicate: !$("basket-duplicate").hidden && $("basket-confirm-duplicate").checked });
    $("basket-review").hidden = true;
    $("basket-receipts").replaceChildren(...answer.receipts.flatMap((receipt, index) => [
      element("dt", { text: (index + 1) + ". " + state.basket[index].title }),
      element("dd", { className: receipt.status, text: receipt.status + " — journal entry " + receipt.journal
        + (receipt.posting ? ": " + receipt.posting.amount + " " + receipt.posting.currency + " to " + receipt.posting.credit : "")
        + (receipt.reason ? ": " + receipt.reason : "") })]));
    state.basket = [];
    $("basket-items").tBodies[0].replaceChildren();
    $("basket-make").hidden = true;
    say("Basket signed: " + answer.receipts.filter((r) => r.status === "posted").length + " of " + answer.receipts.length + " posted.");
    await Promise.all([loadAccounts(), loadJournal()]);
  } catch (error) {
    $("basket-error").textContent = error.message;
    $("basket-code").setAttribute("aria-invalid", "true");
    $("basket-code").focus();
  }
});

$("basket-clear").addEventListener("click", async () => {
  const runs = state.basket.map((item) => item.run);
  state.basket = [];
  showBasket();
  for (const run of runs) { try { await api("DELETE", "/runs/" + run); } catch (e) { /* already gone */ } }
  say("The basket is empty; nothing was signed.");
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
  $("passkey-status").textContent = !available ? "This browser cannot use passkeys here: sign with a one-time code."
    : registered ? "Your passkey signs your payments: each one is confirmed on this device for exactly the amount and payee shown."
      : "Register a passkey to sign payments on this device instead of typing one-time codes.";
  $("passkey-register").hidden = !available;
  $("passkey-code").hidden = !available;
  document.querySelector("label[for=passkey-code]").hidden = !available;
  $("passkey-register").textContent = registered ? "Register a new passkey" : "Register a passkey on this device";
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
    throw new Error("The passkey did not sign: " + error.message);
  }
  const answer = credential.response;
  return { credentialId: base64url.encode(credential.rawId), authenticatorData: base64url.encode(answer.authenticatorData),
    clientDataJSON: base64url.encode(answer.clientDataJSON), signature: base64url.encode(answer.signature) };
}

$("passkey-register").addEventListener("click", async () => {
  $("passkey-error").textContent = "";
  // The server refuses an enrolment without the code (step-up); asking first spares the device an unused credential.
  if (!$("passkey-code").value.trim()) {
    $("passkey-error").textContent = "Type your one-time code first: registering a passkey needs it.";
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
      throw new Error("The passkey was not created: " + error.message);
    }
    await api("POST", "/passkeys", { credentialId: base64url.encode(credential.rawId),
      clientDataJSON: base64url.encode(credential.response.clientDataJSON),
      attestationObject: base64url.encode(credential.response.attestationObject), code: $("passkey-code").value });
    $("passkey-code").value = "";
    showPasskey(true);
    say("Passkey registered: your next payments are signed with it.");
  } catch (error) {
    $("passkey-error").textContent = error.message;
  }
});

function showReceipt(receipt) {
  $("review").hidden = true;
  $("receipt").hidden = false;
  const lines = [["Status", receipt.status], ["Journal entry", String(receipt.journal)], ["Document hash", receipt.documentHash]];
  if (receipt.posting) {
    lines.push(["From", receipt.posting.debit], ["To", receipt.posting.credit],
      ["Amount", receipt.posting.amount + " " + receipt.posting.currency],
      ["Balance now", receipt.posting.balanceAfter + " " + receipt.posting.currency]);
  }
  if (receipt.reason) lines.push(["Reason", receipt.reason]);
  $("receipt-lines").replaceChildren(...lines.flatMap(([term, value]) => [element("dt", { text: term }),
    element("dd", { className: term === "Status" ? receipt.status : null, text: value })]));
  state.run = null;
  $("receipt-title").focus();
}

$("done").addEventListener("click", () => { resetRun(); $("ops-title").scrollIntoView(); });

// MARK: - Server-sent events: captions set later, reloads, shutdown

function openEvents() {
  closeEvents();
  const events = new EventSource("/api/v1/events");
  events.addEventListener("caption", (event) => {
    const data = JSON.parse(event.data);
    const entry = state.run && data.run === state.run.id && state.atoms.get(data.atom);
    if (entry && entry.atom.caption !== data.caption) {
      entry.atom = Object.assign({}, entry.atom, { caption: data.caption });
      update(entry.view, entry.atom, false);
      $("run-announce").textContent = data.caption;
    }
  });
  events.addEventListener("reload", (event) => {
    say("Updated: " + JSON.parse(event.data).message + ". New runs use the new version.");
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

(async () => {
  try {
    await showBank(await api("GET", "/session"));
  } catch (error) {
    showLogin("");
  }
})();
