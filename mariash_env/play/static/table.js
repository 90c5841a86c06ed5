// The browser table: renders the server's state and sends the human's choices.
// The game runs server-side; every request carries the session id and the move it answers.
// One tab drives (web.py): the tab that made the last move advances the robots; any other
// tab follows by polling the state, and a move made there makes it the driver.
"use strict";
const params = new URLSearchParams(location.search);
const ROBOT_DELAY = Number(params.get("delay") ?? 700);  // ms between robot moves
const POLL = { driver: 2000, follower: 1000 };  // ms; the driver's poll keeps its lease
// This page's id (a reload is a new page; the old one leaves on pagehide)
const CLIENT = "tab-" + Math.random().toString(36).slice(2, 12) + Date.now().toString(36);
const QUIET = new Set(["stale", "follower"]);  // the table moved on: just show it
const SYMBOL = { h: "♥", b: "♦", l: "♠", a: "♣" };
const SUIT_CZ = { h: "červené", b: "kule", l: "zelené", a: "žaludy" };
const SUIT_EN = { h: "hearts", b: "bells", l: "leaves", a: "acorns" };
const BET_CZ = { seven: "sedma", seven_against: "sedma proti", hundred_against: "sto proti" };
const ROLE_CZ = { forhont: "forhont", forhond: "forhond", middlehand: "zadák", dealer: "rozdávající" };
const POSITION = { holder: "drží / holder", challenger: "licituje / challenger" };
const TITLE = { voleny: "Volený mariáš", licitovany: "Licitovaný mariáš" };
let state = null;
let shownJson = "";
let timer = null, timerMove = null, pollTimer = null;
let busy = false;

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
const signed = (n) => (n > 0 ? "+" : "") + n;

function cardEl(c) {
  const e = el("div", "card suit-" + c.suit);
  e.title = c.cz;  // Czech name on hover
  e.dataset.code = c.code;
  const rank = c.short.slice(0, -1);
  e.append(el("span", "r", rank), el("span", "s", SYMBOL[c.suit]), el("span", "r2", rank));
  return e;
}

function showError(msg) {
  const e = $("error"); e.textContent = msg; e.hidden = false;
  clearTimeout(showError.t); showError.t = setTimeout(() => { e.hidden = true; }, 5000);
}

async function call(path, extra) {
  if (busy) return;
  busy = true;
  try {
    const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ session: state.session, move: state.move, client: CLIENT, ...extra }) });
    const data = await res.json();
    if (!res.ok) {
      if (!QUIET.has(data.code)) showError(data.error || res.statusText);
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

function seatBox(s, said, unit) {
  const box = el("div");
  box.append(el("div", "name", s.name + (s.human ? " (vy / you)" : "")));
  const role = s.role ? `${ROLE_CZ[s.role]} / ${s.role}` : "";
  box.append(el("div", "role", s.position ? `${role} · ${POSITION[s.position]}` : role));
  const nums = el("div", "nums");
  nums.innerHTML = `${unit} <b class="${s.score >= 0 ? "pos" : "neg"}">${signed(s.score)}</b> · body/points <b>${s.points}</b> · štychy/tricks <b>${s.tricks}</b>`;
  box.append(nums, el("div", "said", said || ""));
  return box;
}

function render(st) {
  // an answer that crossed a newer one on the way (polls race the moves) is dropped
  if (state && st.session === state.session && st.move < state.move) return;
  const json = JSON.stringify(st);
  if (json !== shownJson) {  // an unchanged poll keeps the page as it is
    shownJson = json;
    state = st;
    draw(st);
  }
  scheduleAdvance(st);
}

// Robots move one by one, advanced by the driving tab only.
function scheduleAdvance(st) {
  if (st.waiting === "robot" && st.driver) {
    if (timerMove !== st.move) {
      clearTimeout(timer);
      timerMove = st.move;
      timer = setTimeout(() => { timerMove = null; call("/api/advance", {}); }, ROBOT_DELAY);
    }
  } else { clearTimeout(timer); timerMove = null; }
}

function draw(st) {
  document.body.dataset.role = st.driver ? "driver" : "follower";
  document.body.dataset.waiting = st.waiting;
  document.body.dataset.move = st.move;
  document.body.dataset.rules = st.rules;
  $("title").textContent = TITLE[st.rules];
  $("deal-info").textContent = `rozdání / deal ${st.deal + 1}/${st.deals} · tah / move ${st.move}`;
  // contract and bets
  const c = st.contract, cont = $("contract");
  cont.innerHTML = "";
  if (c.tags) {  // licitovaný: the server words the auction and the contract
    for (const t of c.tags) cont.append(el("span", "tag", t));
  } else if (c.kind) {
    let txt = c.kind === "suit" ? "barva / suit game" : c.kind;
    cont.append(el("span", "tag", `aktér / actor: ${st.seats[c.actor].name}`), el("span", "tag", txt));
    if (c.trump) cont.append(el("span", "tag", `trumfy / trumps: ${SYMBOL[c.trump]} ${SUIT_CZ[c.trump]} / ${SUIT_EN[c.trump]}`));
    if (c.announce) cont.append(el("span", "tag", c.announce));
    for (const b of c.bets) {
      const name = b.bet === "game" ? (c.kind === "suit" ? "hra" : c.kind) : BET_CZ[b.bet];
      cont.append(el("span", "tag", `${name}${b.level ? " " + b.level_name : ""}`));
    }
  } else if (c.trump_card) {
    cont.append(el("span", "tag", `tvůj trumf / your trump card: ${c.trump_card}`));
  }
  // seats: left is the next seat after the human, right the one before
  const me = st.human_seat, left = (me + 1) % 3, right = (me + 2) % 3;
  const said = {};
  for (const e of st.events) said[e.seat] = `${e.cz}`;
  for (const [id, seat] of [["seat-me", me], ["seat-left", left], ["seat-right", right]]) {
    const box = $(id); box.innerHTML = "";
    box.classList.toggle("to-move", st.seats[seat].to_move);
    box.append(seatBox(st.seats[seat], said[seat], st.unit));
  }
  // tricks
  const trick = $("trick"); trick.innerHTML = "";
  for (const p of st.trick) {
    const w = el("div", "played"); w.append(cardEl(p), el("span", "", st.seats[p.seat].name)); trick.append(w);
  }
  const last = $("last-trick"); last.innerHTML = "";
  for (const p of st.last_trick) last.append(cardEl(p));
  // hand
  const hand = $("hand"); hand.innerHTML = "";
  for (const card of st.hand) {
    const e = cardEl(card);
    if (c.trump && card.suit === c.trump) e.classList.add("trump");
    if (card.label) {
      e.classList.add("legal");
      e.dataset.label = card.label;
      e.title = `${card.cz} — ${card.label.split(":")[0]}`;
      e.addEventListener("click", () => call("/api/act", { action: card.label }));
    }
    hand.append(e);
  }
  // choices
  const ch = $("choices"); ch.innerHTML = "";
  const button = (cz, en, cls, onclick, label) => {
    const b = el("button", cls); b.append(el("span", "cz", cz), el("span", "en", en));
    if (label) b.dataset.label = label;
    b.addEventListener("click", onclick); ch.append(b); return b;
  };
  for (const x of st.choices) button(x.cz, x.en, "choice", () => call("/api/act", { action: x.label }), x.label);
  if (st.can_undo) button("zpět", "undo", "undo", () => call("/api/undo", {}));
  if (st.waiting === "next_deal") button("další rozdání", "next deal", "next", () => call("/api/next", {}));
  if (st.waiting === "partie_over") button("nová partie", "new partie", "next", () => call("/api/new", {}));
  // status line
  const phaseHelp = { trump: "zvolte trumf / choose the trump card", contract: "zvolte hru / choose the contract",
    discard: "odložte do talonu / discard to the talon", play: "hrajte kartu / play a card",
    bid: "licitujte, nebo pas / bid or pass", hold: "držte, nebo pas / hold or pass",
    lone_bid: "licitujte sám, nebo pas / bid alone or pass", game: "zvolte hru / announce the game",
    trumps: "zvolte trumfy / name trumps", helping: "zvolte pomocnou barvu / name the helping suit",
    lead: "vyneste kartu lícem dolů / lay the face-down lead", flek: "flek, nebo dobrý / flek or good" };
  let status = "";
  if (st.waiting === "human") status = phaseHelp[st.phase] || "váš tah / your turn";
  else if (st.waiting === "robot") status = `hraje / to move: ${st.seats[st.to_move].name}…`;
  else if (st.waiting === "next_deal") status = "rozdání skončilo / the deal is over";
  else status = "partie skončila / the partie is over";
  if (!st.driver) status += " · sledujete / following: hraje se v jiné kartě / another tab plays";
  $("status").textContent = status;
  // events
  const ev = $("events"); ev.innerHTML = "";
  for (const e of st.events) {
    const li = el("li", e.seat === me ? "me" : "", `${e.name}: ${e.cz}`); li.title = e.en; ev.append(li);
  }
  ev.scrollTop = ev.scrollHeight;
  // settlement of the finished deal, line by line
  const set = $("settlement"); set.innerHTML = "";
  if (st.settlement) for (const l of st.settlement.lines) set.append(el("div", "line", l));
  else set.textContent = "—";
  // partie score per deal
  const tb = $("partie"); tb.innerHTML = "";
  const head = el("tr"); head.append(el("th", "", "#")); for (const s of st.seats) head.append(el("th", "", s.name)); tb.append(head);
  for (const d of st.deal_results) {
    const tr = el("tr"); tr.append(el("td", "", d.deal + 1));
    d.payments.forEach((p, i) => { const td = el("td", p >= 0 ? "pos" : "neg", `${signed(p)} (${signed(d.scores[i])})`); tr.append(td); });
    tb.append(tr);
  }
  // series
  const ser = $("series"); ser.innerHTML = "";
  for (const [period, cz] of [["week", "týden"], ["month", "měsíc"]]) {
    const t = st.series[period];
    ser.append(el("div", "", `${cz} / ${period} ${t.key} — nejlepší ${t.best} / best ${t.best}`));
    const table = el("table"); const h = el("tr");
    for (const x of ["#", "hráč / player", "součet / total", "partie", "výhry / wins"]) h.append(el("th", "", x));
    table.append(h);
    for (const r of t.rows) {
      const tr = el("tr"); for (const x of [r.place, r.name, signed(r.total), r.parties, r.wins]) tr.append(el("td", "", x));
      table.append(tr);
    }
    if (!t.rows.length) {
      const tr = el("tr"), td = el("td", "", "žádná dohraná partie / no finished partie");
      td.colSpan = 5; tr.append(td); table.append(tr);
    }
    ser.append(table);
  }
  for (const f of st.series.skipped || []) {
    ser.append(el("div", "skipped", `vynecháno / skipped ${f.file}: ${f.error}`));
  }
}

load().then(schedulePoll);
