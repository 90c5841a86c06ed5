// The browser table: renders the server's state and sends the human's choices.
// The game runs server-side; every request carries the session id and the move it answers.
// One tab drives (web.py): the tab that made the last move advances the robots; any other
// tab follows by polling the state, and a move made there makes it the driver.
// Words come from the server's catalogue (i18n.py, GET /api/messages) in Czech or English;
// the cards are the project's own SVG drawings (cards_svg.py, GET /cards/<code>.svg).
"use strict";
const params = new URLSearchParams(location.search);
const SPEEDS = { slow: 1400, normal: 800, fast: 250 };  // ms between robot moves
const POLL = { driver: 2000, follower: 1000 };  // ms; the driver's poll keeps its lease
// This page's id (a reload is a new page; the old one leaves on pagehide)
const CLIENT = "tab-" + Math.random().toString(36).slice(2, 12) + Date.now().toString(36);
const QUIET = new Set(["stale", "follower"]);  // the table moved on: just show it
let MSG = { cz: {}, en: {} };
let SETUP = null;
let lang = localStorage.getItem("mariash.lang") === "en" ? "en" : "cz";
let speed = localStorage.getItem("mariash.speed") || "normal";
let state = null;
let shownJson = "";
let timer = null, timerMove = null, pollTimer = null;
let busy = false, skipping = false, bannerMove = null;

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
const signed = (n) => (n > 0 ? "+" : "") + n;
// A catalogue message with its {fields} filled
const T = (key, fields = {}) => (MSG[lang][key] ?? key).replace(/\{(\w+)\}/g, (m, k) => fields[k] ?? m);
const W = (pair) => (pair ? pair[lang] ?? pair.cz : "");  // a {cz, en} pair from the server
const robotDelay = () => (params.has("delay") ? Number(params.get("delay")) : SPEEDS[speed] ?? SPEEDS.normal);
const nameOf = (seat) => (state ? state.seats[seat].names[lang] : "");

function cardEl(c, extra) {
  const e = el("div", "card suit-" + c.suit + (extra ? " " + extra : ""));
  e.dataset.code = c.code;
  e.title = T("card." + c.code);
  const img = el("img"); img.alt = T("card." + c.code); img.draggable = false;
  img.src = `/cards/${c.code}${lang === "en" ? "-en" : ""}.svg`;
  e.append(img);
  return e;
}

// What a refused request says on the page: the server's words, but in the page's language
// where the player did nothing wrong (another tab started a new partie meanwhile)
const refusal = (data, res) => (data.code === "unknown_session" ? T("error.new_partie") : data.error || res.statusText);

function showError(msg) {
  const e = $("error"); e.textContent = msg; e.hidden = false;
  clearTimeout(showError.t); showError.t = setTimeout(() => { e.hidden = true; }, 5000);
}

async function post(path, extra) {
  const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ session: state.session, move: state.move, client: CLIENT, ...extra }) });
  return [res, await res.json()];
}

async function call(path, extra) {
  if (busy) return;
  busy = true;
  try {
    const [res, data] = await post(path, extra);
    if (!res.ok) {
      if (!QUIET.has(data.code)) showError(refusal(data, res));
      busy = false; await load(); return;
    }
    render(data);
  } catch (err) { showError(String(err)); }
  finally { busy = false; }
}

async function load() {
  try {
    const res = await fetch("/api/state?client=" + encodeURIComponent(CLIENT));
    const data = await res.json();
    if (res.ok) render(data); else showError(data.error || res.statusText);
  } catch (err) { showError(String(err)); }
}

// Every tab polls: a follower to see the driver's moves, the driver to keep its lease.
function schedulePoll() {
  clearTimeout(pollTimer);
  pollTimer = setTimeout(async () => {
    if (!busy) await load();
    schedulePoll();
  }, state && state.driver ? POLL.driver : POLL.follower);
}

addEventListener("pagehide", () => {
  const body = new Blob([JSON.stringify({ client: CLIENT })], { type: "application/json" });
  navigator.sendBeacon("/api/leave", body);  // a reload drives again at once
});

function render(st, force) {
  // an answer that crossed a newer one on the way (polls race the moves) is dropped
  if (state && st.session === state.session && st.move < state.move) return;
  const json = JSON.stringify(st);
  if (json !== shownJson || force) {  // an unchanged poll keeps the page as it is
    shownJson = json;
    state = st;
    draw(st);
  }
  scheduleAdvance(st);
}

// Robots move one by one, advanced by the driving tab only; a finished trick stays on
// the felt a little longer, and "skip" runs them at once up to the human's turn.
function scheduleAdvance(st) {
  if (st.waiting === "robot" && st.driver) {
    if (timerMove !== st.move) {
      clearTimeout(timer);
      timerMove = st.move;
      const last = st.events[st.events.length - 1];
      const wait = skipping ? 0 : robotDelay() * (last && last.takes !== undefined ? 2 : 1);
      timer = setTimeout(() => { timerMove = null; call("/api/advance", {}); }, wait);
    }
  } else {
    clearTimeout(timer); timerMove = null;
    if (st.waiting !== "robot") skipping = false;
  }
}

function seatBox(s, said) {
  const box = el("div");
  const head = el("div", "name", s.names[lang] + (s.human && s.names[lang] !== T("you") ? ` (${T("you")})` : ""));
  box.append(head);
  const role = s.role ? T("role." + s.role) : "";
  box.append(el("div", "role", s.position ? `${role} · ${T("position." + s.position)}` : role));
  const nums = el("div", "nums");
  nums.append(el("b", s.score >= 0 ? "pos" : "neg", W(s.score_text)));  // "+42 grošů"
  if (!s.sitting_out) nums.append(document.createTextNode(` · ${T("points", { points: s.points })} · ${T("tricks_taken", { tricks: s.tricks })}`));
  box.append(nums, el("div", "said", said || ""));
  return box;
}

function applyWords() {
  document.documentElement.lang = lang === "cz" ? "cs" : "en";
  document.body.dataset.lang = lang;
  for (const e of document.querySelectorAll("[data-msg]")) e.textContent = T(e.dataset.msg, { n: e.dataset.n });
  for (const o of $("speed").options) o.textContent = T("speed." + o.value);
  // the words a screen reader and the tab's title say, in the page's language too
  $("speed").setAttribute("aria-label", T("setup.speed"));
  document.title = `${T("title." + (state ? state.rules : "voleny"))} — ${T("subtitle")}`;
}

function draw(st) {
  document.body.dataset.role = st.driver ? "driver" : "follower";
  document.body.dataset.waiting = st.waiting;
  document.body.dataset.move = st.move;
  document.body.dataset.rules = st.rules;
  applyWords();
  $("title").textContent = T("title." + st.rules);
  $("deal-info").textContent = T("deal_info", { deal: st.deal + 1, deals: st.deals, move: st.move });
  const cont = $("contract"); cont.innerHTML = "";
  for (const t of st.contract.tags) cont.append(el("span", "tag", W(t)));
  // seats: left is the next seat after the human, right the one before (lízaný: two;
  // four players: the one after left sits across)
  const n = st.seats.length, me = st.human_seat, left = (me + 1) % n, right = (me + n - 1) % n;
  const said = {};
  for (const e of st.events) said[e.seat] = W(e);
  $("seat-right").hidden = n === 2;
  $("seat-across").hidden = n !== 4;
  const boxes = [["seat-me", me], ["seat-left", left]];
  if (n >= 3) boxes.push(["seat-right", right]);
  if (n === 4) boxes.push(["seat-across", (me + 2) % n]);
  for (const [id, seat] of boxes) {
    const box = $(id); box.innerHTML = "";
    box.classList.toggle("to-move", st.seats[seat].to_move);
    box.classList.toggle("sitting-out", !!st.seats[seat].sitting_out);
    box.append(seatBox(st.seats[seat], said[seat]));
  }
  drawFelt(st);
  drawHand(st);
  drawChoices(st);
  drawStatus(st);
  drawSide(st);
  drawBanner(st);
}

// The felt: the trick being played, each card with its player; between tricks the
// finished one with who takes it, the deal's last one too once it is over (under the
// banner, which shows it as well); a marriage announced by the last card.
function drawFelt(st) {
  const trick = $("trick"); trick.innerHTML = "";
  const note = $("trick-note"); note.textContent = "";
  let cards = st.trick, done = null;
  if (!cards.length && st.tricks.length) {
    done = st.tricks[st.tricks.length - 1]; cards = done.cards;
  }
  for (const p of cards) {
    const w = el("div", "played" + (done && p.seat === done.winner ? " winner" : ""));
    w.append(cardEl(p), el("span", "who", nameOf(p.seat)));
    trick.append(w);
  }
  trick.classList.toggle("done", !!done);
  const last = st.events[st.events.length - 1];
  const parts = [];
  if (done) parts.push(`${T("trick_no", { no: done.no })}: ${done.winner === st.human_seat ? T("takes.you") : T("takes", { name: nameOf(done.winner) })}`);
  if (last && last.marriage) parts.push(`${nameOf(last.seat)}: ${T("marriage.short", { points: last.marriage.points })} (${T("suit." + last.marriage.suit)})`);
  note.textContent = parts.join(" · ");
  note.classList.toggle("marriage", !!(last && last.marriage));
  drawStock(st);
}

// Lízaný: the trump card turned up under the stock, the cards left, the card you drew.
function drawStock(st) {
  const box = $("stock"); box.innerHTML = "";
  box.hidden = !st.stock_card && !st.drawn;
  if (st.stock_card) {
    const pile = el("div", "pile");
    pile.append(cardEl(st.stock_card, "mini stock-trump"), el("span", "", T("lizany.stock", { n: st.stock })));
    box.append(pile);
  }
  if (st.drawn) box.append(el("div", "drew", T("lizany.drew", { card: T("card." + st.drawn) })));
}

function drawHand(st) {
  const hand = $("hand");
  // a card in keyboard focus keeps it across the redraw (its neighbour once played)
  const focused = [...hand.children].indexOf(document.activeElement);
  const focusedCode = focused >= 0 ? document.activeElement.dataset.code : null;
  hand.innerHTML = "";
  const c = st.contract;
  // grey the cards that may not be played only while a card is to be chosen
  hand.classList.toggle("choosing", st.hand.some((x) => x.label));
  for (const card of st.hand) {
    const e = cardEl(card);
    e.tabIndex = 0;
    e.setAttribute("role", "button");
    if (c.trump && card.suit === c.trump) e.classList.add("trump");
    if (card.code === st.drawn) e.classList.add("drawn");  // lízaný: just drawn
    // a talon card taken up (until the discard), your own trump card lying face down:
    // a badge on the card and its words in the card's name
    for (const [mark, cls] of [["taken", "taken"], ["trump_card", "trump-card"]]) {
      if (!card[mark]) continue;
      e.classList.add(cls);
      e.dataset.badge = T("hand." + mark);
      e.dataset.badgeShort = T("hand." + mark + ".short");
      e.title += " — " + T("hand." + mark + ".long");
    }
    if (card.label) {
      e.classList.add("legal");
      e.dataset.label = card.label;
      e.addEventListener("click", () => call("/api/act", { action: card.label }));
    } else {
      if (card.why) { e.title += " — " + W(card.why); e.dataset.why = card.why.cz; }
      e.addEventListener("click", () => { $("why").textContent = `${T("card." + card.code)}: ${card.why ? W(card.why) : ""}`; });
    }
    e.setAttribute("aria-label", e.title);  // a greyed card: its name and why not
    e.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); e.click(); }
    });
    hand.append(e);
  }
  if (focused >= 0 && hand.children.length) {
    const cards = [...hand.children];
    (cards.find((x) => x.dataset.code === focusedCode) || cards[Math.min(focused, cards.length - 1)]).focus();
  }
  fitHand();
}

// Keyboard play: ←/→ move along the hand, Enter or Space plays the card in focus (a
// greyed one says why not), 1–9 press the choices in their order, H asks for a hint, U
// undoes, S skips the robots, N deals the next deal (or starts a new partie), Esc closes
// the window on top.
const KEYS = { h: "#choices button.hint", u: "#choices button.undo", s: "#choices button.skip",
  n: "#choices button.next" };
document.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.altKey || ev.metaKey || $("confirm-new").open) return;  // its own keys
  const open = ["setup", "review", "banner"].find((id) => !$(id).hidden);
  if (ev.key === "Escape" && open) {
    if (open === "banner") $("banner-close").click(); else closeWindow(open);
    return;
  }
  if (ev.target.closest("input, select, textarea") || (open && open !== "banner")) return;
  const key = ev.key.toLowerCase();
  if (ev.key === "ArrowLeft" || ev.key === "ArrowRight") {
    const cards = [...document.querySelectorAll("#hand .card")];
    if (!cards.length) return;
    ev.preventDefault();
    const i = cards.indexOf(document.activeElement), step = ev.key === "ArrowRight" ? 1 : -1;
    const j = i < 0 ? (step > 0 ? 0 : cards.length - 1) : Math.min(cards.length - 1, Math.max(0, i + step));
    cards[j].focus();
  } else if (/^[1-9]$/.test(key)) {
    const b = document.querySelectorAll("#choices button.choice")[Number(key) - 1];
    if (b) b.click();
  } else if (KEYS[key] && !ev.repeat) {
    const b = document.querySelector(KEYS[key]);
    if (b) b.click();
  }
});

// One row: the cards overlap as much as the width needs (12 cards on a phone too).
function fitHand() {
  const hand = $("hand"), cards = hand.querySelectorAll(".card");
  if (!cards.length) return;
  const w = cards[0].getBoundingClientRect().width, gap = 6, room = hand.clientWidth - 4;
  const need = cards.length * w + (cards.length - 1) * gap;
  const step = need > room ? (room - w) / (cards.length - 1) : w + gap;
  cards.forEach((e, i) => { e.style.marginLeft = i ? `${step - w}px` : "0"; });
  // a badge on the card's visible part: centred over a card shown whole, at the left of
  // an overlapped one's strip; its words where they fit the step to the next card, else
  // its short mark (two talon cards side by side printed their words over each other)
  hand.classList.toggle("overlap", step < w);
  for (const e of cards) {
    if (!e.dataset.badge) continue;
    e.classList.remove("short-badge");
    if (parseFloat(getComputedStyle(e, "::after").width) > step - 2) e.classList.add("short-badge");
  }
}
addEventListener("resize", fitHand);

function drawChoices(st) {
  const ch = $("choices"); ch.innerHTML = "";
  const button = (text, cls, onclick, label) => {
    const b = el("button", cls, text);
    if (label) b.dataset.label = label;
    b.addEventListener("click", onclick); ch.append(b); return b;
  };
  for (const x of st.choices) button(W(x), "choice", () => call("/api/act", { action: x.label }), x.label);
  if (st.can_undo) button(T("btn.undo"), "undo", () => call("/api/undo", {}));
  if (st.waiting === "human") button(T("btn.hint"), "hint small", askHint);
  if (st.waiting === "robot" && st.driver) button(T("btn.skip"), "skip small", () => { skipping = true; clearTimeout(timer); timerMove = null; scheduleAdvance(state); });
  if (st.waiting === "next_deal") button(T("btn.next"), "next", () => call("/api/next", {}));
  if (st.waiting === "partie_over") button(T("btn.new"), "next", () => newPartie(st));
}

// A new partie plays the one just finished once more (game, robots, seat, options).
function newPartie(st) {
  return starting({ setup: st.setup });
}

// POST /api/new, saying meanwhile when the server compiles the new robots' code (an
// empty numba cache: minutes in which the page would look stuck).
async function starting(extra) {
  let waiting = true;  // a poll answered after /api/new must not cover the new partie's status
  const timer = setInterval(async () => {
    try {
      const data = await (await fetch("/api/compiling")).json();
      if (waiting && data.compiling) $("status").textContent = T("status.compiling");
    } catch (err) { /* the answer of /api/new says what went wrong */ }
  }, 1000);
  try { await call("/api/new", extra); } finally { waiting = false; clearInterval(timer); }
}

async function askHint() {
  try {
    const [res, data] = await post("/api/hint", {});
    if (!res.ok) { if (!QUIET.has(data.code)) showError(refusal(data, res)); await load(); return; }
    $("why").textContent = T("hint", { what: W(data.hint) });
    const code = data.hint.label.split(":")[1];
    for (const e of document.querySelectorAll("#hand .card")) e.classList.toggle("hinted", e.dataset.code === code);
    for (const b of document.querySelectorAll("#choices button.choice")) b.classList.toggle("hinted", b.dataset.label === data.hint.label);
  } catch (err) { showError(String(err)); }
}

function drawStatus(st) {
  let status = "";
  if (st.waiting === "human") {
    const own = "status." + st.phase + "." + st.rules;  // a game's own wording of a phase
    const key = MSG[lang][own] ? own : "status." + st.phase;
    // a flek turn names the moves it offers (the server's, from the legal moves)
    status = st.prompt ? W(st.prompt) : MSG[lang][key] ? T(key) : T("status.your_turn");
    // one legal button and no card: say what it is ("flek, or good" offers no flek)
    if (st.legal.length === 1 && st.choices.length === 1) status = T("status.only", { action: W(st.choices[0]) });
  } else if (st.waiting === "robot") status = T("status.robot", { name: nameOf(st.to_move) });
  else status = T("status." + st.waiting);
  if (!st.driver) status += " · " + T("status.following");
  $("status").textContent = status;
  $("why").textContent = "";
}

function drawSide(st) {
  const me = st.human_seat;
  const ev = $("events"); ev.innerHTML = "";
  for (const e of st.events) ev.append(el("li", e.seat === me ? "me" : "", `${nameOf(e.seat)}: ${W(e)}`));
  ev.scrollTop = ev.scrollHeight;
  // each player's moves of this deal, side by side
  const ps = $("per-seat"); ps.innerHTML = "";
  const hr = el("tr"); for (const s of st.seats) hr.append(el("th", "", s.names[lang])); ps.append(hr);
  const cols = st.seats.map((s) => st.events.filter((e) => e.seat === s.seat));
  const rows = Math.max(0, ...cols.map((c) => c.length));
  for (let i = 0; i < rows; i++) {
    const tr = el("tr");
    for (const c of cols) {
      const e = c[i], td = el("td");
      if (e && e.card) td.append(cardEl({ code: e.card, suit: e.card[1] }, "mini"));  // a played card
      else if (e) td.textContent = W(e);
      tr.append(td);
    }
    ps.append(tr);
  }
  // the finished tricks of the deal with who took each
  const tr = $("tricks"); tr.innerHTML = "";
  for (const t of st.tricks) tr.append(trickRow(t, st));
  if (!st.tricks.length) tr.textContent = T("none");
  const set = $("settlement"); set.innerHTML = "";
  if (st.settlement) for (const l of st.settlement.lines[lang]) set.append(el("div", "line", l));
  else set.textContent = T("none");
  // the partie's deals; a click opens the review of one
  const tb = $("partie"); tb.innerHTML = "";
  const head = el("tr"); head.append(el("th", "", "#")); for (const s of st.seats) head.append(el("th", "", s.names[lang])); tb.append(head);
  for (const d of st.deal_results) {
    // the deal's number opens its review by the keyboard too (Tab, then Enter or Space)
    const row = el("tr", "deal-row"), no = el("td"), open = el("button", "small deal-no", d.deal + 1);
    open.setAttribute("aria-label", `${T("review")} ${d.deal + 1}`);
    no.append(open); row.append(no);
    d.payments.forEach((p, i) => row.append(el("td", p >= 0 ? "pos" : "neg", `${signed(p)} (${signed(d.scores[i])})`)));
    row.title = T("review.show");
    row.addEventListener("click", () => showReview(d));
    tb.append(row);
  }
  drawSeries(st);
}

function trickRow(t, st) {
  const row = el("div", "trick-row");
  row.append(el("span", "no", t.no + "."));
  for (const p of t.cards) {
    const c = el("span", "tc" + (p.seat === t.winner ? " won" : ""));
    c.append(cardEl(p, "mini"), el("small", "", nameOf(p.seat)));
    row.append(c);
  }
  row.append(el("span", "takes", t.winner === st.human_seat ? T("takes.you") : T("takes", { name: nameOf(t.winner) })));
  return row;
}

function drawSeries(st) {
  const ser = $("series"); ser.innerHTML = "";
  // the saved names ("you", "robot table (0)") as this table words them
  const shown = Object.fromEntries(st.seats.map((s) => [s.name, s.names[lang]]));
  for (const period of ["week", "month"]) {
    const t = st.series[period];
    ser.append(el("div", "", T("series." + period, { key: t.key })));
    const table = el("table"); const h = el("tr");
    for (const x of ["#", T("series.player"), T("series.total"), T("series.parties"), T("series.wins")]) h.append(el("th", "", x));
    table.append(h);
    for (const r of t.rows) {
      const tr = el("tr"); for (const x of [r.place, shown[r.name] ?? r.name, signed(r.total), r.parties, r.wins]) tr.append(el("td", "", x));
      table.append(tr);
    }
    if (!t.rows.length) {
      const tr = el("tr"), td = el("td", "", T("series.empty"));
      td.colSpan = 5; tr.append(td); table.append(tr);
    }
    ser.append(table);
  }
  for (const f of st.series.skipped || []) ser.append(el("div", "skipped", T("series.skipped", f)));
}

async function loadStats() {
  try {
    const data = await (await fetch("/api/stats")).json();
    const box = $("stats"); box.innerHTML = "";
    const games = Object.entries(data.games);
    if (!games.length) { box.textContent = T("stats.none"); return; }
    for (const [, g] of games) {
      box.append(el("div", "stat-head", W(g.text)));  // worded by the server (i18n.amount)
      const contracts = Object.values(g.contracts);
      if (!contracts.length) continue;  // no contract played as actor (lízaný has none)
      const table = el("table"), h = el("tr");
      for (const x of [T("stats.contract"), T("stats.played"), T("stats.won")]) h.append(el("th", "", x));
      table.append(h);
      for (const c of contracts) {
        const tr = el("tr");
        for (const x of [c[lang], c.played, c.won]) tr.append(el("td", "", x));
        table.append(tr);
      }
      box.append(table);
    }
  } catch (err) { showError(String(err)); }
}

// The end of a deal: a banner with the settlement in words, the review a click away.
function drawBanner(st) {
  const over = st.waiting === "next_deal" || st.waiting === "partie_over";
  const banner = $("banner");
  if (!over || !st.settlement) { banner.hidden = true; bannerMove = null; return; }
  if (bannerMove === st.move) return;  // closed by the player: stays closed
  $("banner-title").textContent = T(st.waiting === "partie_over" ? "banner.partie_over" : "banner.deal_over");
  const lines = $("banner-lines"); lines.innerHTML = "";
  for (const l of st.settlement.lines[lang]) lines.append(el("div", "line", l));
  // the deal's last trick stays in sight: the banner covers the felt
  const last = st.tricks[st.tricks.length - 1];
  if (last) {
    lines.append(el("h3", "", T("banner.last_trick")));
    lines.append(trickRow(last, st));
  }
  const btns = $("banner-buttons"); btns.innerHTML = "";
  const b = el("button", "next", T(st.waiting === "partie_over" ? "btn.new" : "btn.next"));
  b.id = "banner-next";
  b.addEventListener("click", () => st.waiting === "partie_over" ? newPartie(st) : call("/api/next", {}));
  btns.append(b);
  $("banner-review").onclick = () => showReview(st.settlement);
  banner.hidden = false;
  loadStats();
}

// The review of a settled deal: the hands as dealt, the talon, every trick.
function showReview(d) {
  const r = d.review, body = $("review-body"); body.innerHTML = "";
  $("review-deal").textContent = `${d.deal + 1}`;
  // while the partie goes on it shows only the cards you know (the next deals are cut
  // from these, never shuffled): say so
  body.append(el("h3", "", T(r.complete === false ? "review.known" : "review.dealt")));
  r.hands.forEach((h, seat) => {
    if (!h.length) return;  // the dealer sitting out at four
    const row = el("div", "review-hand");
    row.append(el("span", "who", nameOf(seat)));
    for (const code of h) row.append(cardEl({ code, suit: code[1] }, "mini"));
    body.append(row);
  });
  for (const x of r.taken || []) {  // a talon taken up (volený's betl or durch bid)
    const row = el("div", "review-hand");
    row.append(el("span", "who", `${nameOf(x.seat)}: ${T("review.taken")}`));
    for (const code of x.cards) row.append(cardEl({ code, suit: code[1] }, "mini"));
    body.append(row);
  }
  const talon = [...r.talon, ...r.discards];
  if (talon.length) {
    const row = el("div", "review-hand");
    const own = state ? "review.talon." + state.rules : "";  // lízaný's stock
    row.append(el("span", "who", T(MSG[lang][own] ? own : "review.talon")));
    for (const code of r.talon.length ? r.talon : r.discards) row.append(cardEl({ code, suit: code[1] }, "mini"));
    if (r.talon.length && r.discards.length) {
      row.append(el("span", "who", "→"));
      for (const code of r.discards) row.append(cardEl({ code, suit: code[1] }, "mini"));
    }
    body.append(row);
  }
  body.append(el("h3", "", T("tricks_of_deal")));
  for (const t of r.tricks) body.append(trickRow(t, state));
  for (const l of d.lines[lang]) body.append(el("div", "line", l));
  openWindow("review", $("review-close"));
}

// A window on top (the new-partie form, a deal's review) takes the keyboard focus and
// gives it back to what opened it when it closes; meanwhile the page under it is inert,
// so that Tab stays in the window.
const UNDER = "header, main, #banner";
let opener = null;
function openWindow(id, first) {
  if ($("setup").hidden && $("review").hidden) opener = document.activeElement;
  $(id).hidden = false;
  for (const e of document.querySelectorAll(UNDER)) e.inert = true;
  first.focus();
}
function closeWindow(id) {
  $(id).hidden = true;
  if (!$("setup").hidden || !$("review").hidden) return;
  for (const e of document.querySelectorAll(UNDER)) e.inert = false;
  if (opener && opener.isConnected) opener.focus();
  opener = null;
}

$("review-close").addEventListener("click", () => closeWindow("review"));
$("btn-lang").addEventListener("click", () => {
  lang = lang === "cz" ? "en" : "cz";
  localStorage.setItem("mariash.lang", lang);
  if (state) render(state, true);
  fillSetup();
  loadStats();
});
$("btn-rules").addEventListener("click", () => window.open(`/rules/${state ? state.rules : "voleny"}?lang=${lang}`, "_blank"));
$("speed").addEventListener("change", (e) => { speed = e.target.value; localStorage.setItem("mariash.speed", speed); });
$("btn-setup").addEventListener("click", () => { fillSetup(); openWindow("setup", $("setup-form").rules); });
$("setup-cancel").addEventListener("click", () => closeWindow("setup"));
$("banner-close").addEventListener("click", () => { $("banner").hidden = true; bannerMove = state.move; });

// The new-partie form: game, seat, variant options, robots and their speed.
function fillSetup(chosen = false) {
  if (!SETUP) return;
  applyWords();
  const f = $("setup-form");
  const fill = (sel, values, words, keep) => {
    const old = keep ?? sel.value; sel.innerHTML = "";
    for (const v of values) { const o = el("option", "", words(v)); o.value = v; sel.append(o); }
    if (values.includes(old)) sel.value = old;
  };
  const game = f.rules.value || (state ? state.rules : SETUP.games[0]);
  fill(f.rules, SETUP.games, (g) => T("title." + g), game);
  const robots = SETUP.robots[f.rules.value];
  fill(f.robot1, robots, (r) => T("robot." + r), f.robot1.value || "table");
  fill(f.robot2, robots, (r) => T("robot." + r), f.robot2.value || "table");
  fill(f.robot3, robots, (r) => T("robot." + r), f.robot3.value || "table");
  const counts = SETUP.seat_counts[f.rules.value].map(String);
  fill(f.players, counts, (c) => c, f.players.value || String(state ? state.seats.length : counts[0]));
  fill(f.tariff, SETUP.tariffs, (x) => T("tariff." + x));
  fill(f.speed, Object.keys(SPEEDS), (s) => T("speed." + s), speed);
  f.max_flek.max = 5;
  // the form shows the options the game takes and a second robot where there are three seats
  for (const e of f.querySelectorAll("[data-option]")) e.hidden = !SETUP.options[f.rules.value].includes(e.dataset.option);
  for (const e of f.querySelectorAll(".three-only")) e.hidden = SETUP.players[f.rules.value] < 3;
  // volený's four-player table: a third robot and a fourth seat
  for (const e of f.querySelectorAll(".many-counts")) e.hidden = counts.length < 2;
  const four = Number(f.players.value) === 4;
  for (const e of f.querySelectorAll(".four-only")) { e.hidden = !four; e.disabled = !four; }
  // seats the game has: lízaný's two offer 0 and 1
  const seats = four ? 4 : SETUP.players[f.rules.value];
  for (const o of f.seat.options) { o.hidden = o.disabled = Number(o.value) >= seats; }
  if (Number(f.seat.value) >= seats) f.seat.value = "0";
  f.deals.max = four ? 16 : 12;
  // a game or seat count chosen (or the form's first opening): that game's own deals and
  // flek limit, so that an untouched form sets up the game's default partie
  const own = SETUP.defaults[f.rules.value][f.players.value] || {};
  if (chosen || !setupFilled) {
    if (own.deals) f.deals.value = own.deals;
    if (own.max_flek) f.max_flek.value = own.max_flek;
  }
  setupFilled = true;
}
let setupFilled = false;

// A new partie while this one is not over asks first: a modal dialog (focus starts on
// "keep playing"; Tab moves, Enter or Space presses, Esc keeps playing).  A partie that
// is over is left without a question.
function confirmLeave() {
  const d = $("confirm-new");
  if (!state || state.waiting === "partie_over") return Promise.resolve(true);
  $("confirm-new-text").textContent = T("confirm.new.text", { deal: state.deal + 1, deals: state.deals });
  return new Promise((resolve) => {
    d.returnValue = "";
    d.addEventListener("close", () => resolve(d.returnValue === "yes"), { once: true });
    d.showModal();
    $("confirm-new-no").focus();
  });
}
$("confirm-new-yes").addEventListener("click", () => $("confirm-new").close("yes"));
$("confirm-new-no").addEventListener("click", () => $("confirm-new").close("no"));
$("setup-form").rules.addEventListener("change", () => fillSetup(true));
$("setup-form").players.addEventListener("change", () => fillSetup(true));
$("setup-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (!(await confirmLeave())) return;  // the partie in progress goes on
  const f = ev.target;
  const takes = SETUP.options[f.rules.value], two = SETUP.players[f.rules.value] === 2;
  const options = { deals: Number(f.deals.value) };  // two players: one robot, seat 0 or 1
  if (takes.includes("max_flek")) options.max_flek = Number(f.max_flek.value);
  if (takes.includes("tariff")) options.tariff = f.tariff.value;
  const four = SETUP.seat_counts[f.rules.value].length > 1 && Number(f.players.value) === 4;
  if (four) options.players = 4;
  speed = f.speed.value; localStorage.setItem("mariash.speed", speed); $("speed").value = speed;
  closeWindow("setup");
  const seat = two ? Math.min(Number(f.seat.value), 1) : four ? Number(f.seat.value) : Math.min(Number(f.seat.value), 2);
  const robots = [f.robot1.value, two ? f.robot1.value : f.robot2.value];
  if (four) robots.push(f.robot3.value);
  await starting({ setup: { rules: f.rules.value, seat, robots, options } });
  loadStats();
});

async function start() {
  try {
    [MSG, SETUP] = await Promise.all([(await fetch("/api/messages")).json(), (await fetch("/api/setup")).json()]);
  } catch (err) { showError(String(err)); }
  const sp = $("speed");
  for (const s of Object.keys(SPEEDS)) { const o = el("option", "", T("speed." + s)); o.value = s; sp.append(o); }
  sp.value = speed;
  applyWords();
  await load();
  loadStats();
  schedulePoll();
}
start();
