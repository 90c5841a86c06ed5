"""The table's words in Czech (the default) and English: one message catalogue for the
browser page (served as JSON by ``GET /api/messages``) and the terminal table, and the
cards' names in correct Czech grammar.

A card's Czech name puts the suit as an adjective agreeing with the gender of the rank
noun: sedma, osma, devítka and desítka are feminine (červená sedma), spodek, svršek and
král masculine (kulový svršek), eso neuter (žaludské eso).  The accusative ("hraje
červenou sedmu", "vynáší zeleného krále") is what an event line needs.
"""

from __future__ import annotations

from typing import Any

from ..cards import card_index

LANGS = ("cz", "en")  # the state's text fields are named so ("cz", "en")
SUITS = "hbla"
# Adjective stems of the suits (červen-ý, kulov-ý, zelen-ý, žaludsk-ý)
_SUIT_STEM = {"h": "červen", "b": "kulov", "l": "zelen", "a": "žaludsk"}
# Rank nouns 7, 8, 9, 10, spodek, svršek, král, eso: (nominative, accusative, gender)
_RANK_CZ = (("sedma", "sedmu", "f"), ("osma", "osmu", "f"), ("devítka", "devítku", "f"),
            ("desítka", "desítku", "f"), ("spodek", "spodka", "m"), ("svršek", "svrška", "m"),
            ("král", "krále", "m"), ("eso", "eso", "n"))
# Adjective endings by case and gender (spodek, svršek and král are animate: -ého)
_ADJ_END = {"nom": {"f": "á", "m": "ý", "n": "é"}, "acc": {"f": "ou", "m": "ého", "n": "é"}}
_RANK_EN = ("seven", "eight", "nine", "ten", "unter", "ober", "king", "ace")
SUIT_CZ = {"h": "červené", "b": "kule", "l": "zelené", "a": "žaludy"}  # trumfy jsou …
SUIT_EN = {"h": "hearts", "b": "bells", "l": "leaves", "a": "acorns"}
# The short index in a card's corner: Czech 7 8 9 10 S(podek) Sv(ršek) K(rál) E(so)
INDEX = {"cz": ("7", "8", "9", "10", "S", "Sv", "K", "E"),
         "en": ("7", "8", "9", "10", "U", "O", "K", "A")}


def card_name(code: str, lang: str = "cz", case: str = "nom") -> str:
    """The card's name: ``card_name("9h") == "červená devítka"``, ``card_name("Ja", case=
    "acc") == "žaludského spodka"``, ``card_name("Kb", "en") == "king of bells"``."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}: expected one of {LANGS}")
    if case not in _ADJ_END:
        raise ValueError(f"unknown case {case!r}: expected 'nom' or 'acc'")
    i = card_index(code)
    suit, rank = SUITS[i >> 3], i & 7
    if lang == "en":
        return f"{'the ' if case == 'acc' else ''}{_RANK_EN[rank]} of {SUIT_EN[suit]}"
    nom, acc, gender = _RANK_CZ[rank]
    return f"{_SUIT_STEM[suit]}{_ADJ_END[case][gender]} {nom if case == 'nom' else acc}"


def card_names(code: str) -> dict[str, str]:
    """``{"cz", "en"}``: the card's name in both languages (nominative)."""
    return {lang: card_name(code, lang) for lang in LANGS}


# key: (Czech, English); ``{name}`` fields are filled by :func:`t`.
MESSAGES: dict[str, tuple[str, str]] = {
    # the page's frame
    "title.voleny": ("Volený mariáš", "Volený mariáš"),
    "title.licitovany": ("Licitovaný mariáš", "Licitovaný mariáš"),
    "title.lizany": ("Lízaný mariáš", "Lízaný mariáš"),
    "subtitle": ("u stolu s roboty", "at the table with the robots"),
    "lang.switch": ("English", "Česky"),
    "deal_info": ("rozdání {deal}/{deals} · tah {move}", "deal {deal}/{deals} · move {move}"),
    "you": ("vy", "you"),
    "score": ("{unit} {score}", "{unit} {score}"),
    "points": ("body {points}", "points {points}"),
    "tricks_taken": ("štychy {tricks}", "tricks {tricks}"),
    "unit.groše": ("groše", "groše"),
    "unit.desetníky": ("desetníky", "desetníky"),
    "unit.výhry": ("výhry", "wins"),
    "unit.reward": ("výhry", "wins"),  # lízaný's unit in the registry (GameKind.units)
    "role.leader": ("začíná", "leads"),
    "role.second": ("odpovídá", "second"),
    # a new partie while one is not over asks first
    "confirm.new.title": ("Opustit rozehranou partii?", "Leave the partie in progress?"),
    "confirm.new.text": ("Partie ještě neskončila (rozdání {deal}/{deals}). Nová partie ji "
                         "opustí; odehraná rozdání zůstávají uložena.",
                         "The partie is not over (deal {deal}/{deals}). A new partie leaves "
                         "it; the deals played stay saved."),
    "confirm.new.yes": ("Začít novou partii", "Start a new partie"),
    "confirm.new.no": ("Hrát dál", "Keep playing"),
    # the hand's marks (a badge on the card, and in its accessible name); the short mark
    # where the badge's words are wider than the card's visible part (an overlapped hand)
    "hand.taken": ("z talonu", "talon"),
    "hand.taken.short": ("tal.", "tal."),
    "hand.taken.long": ("vzata z talonu", "taken from the talon"),
    "hand.trump_card": ("trumf", "trump"),
    "hand.trump_card.short": ("tr.", "tr."),
    "hand.trump_card.long": ("vaše trumfová karta, leží lícem dolů",
                             "your trump card, lying face down"),
    "lizany.stock": ("v balíčku: {n}", "stock: {n}"),
    "lizany.trump_card": ("trumfová karta: {card}", "trump card: {card}"),
    "lizany.drew": ("lízli jste: {card}", "you drew: {card}"),
    "lizany.points": ("{name}: {points} bodů (karty {cards} + hlášky {marriages}), štychů "
                      "{tricks}", "{name}: {points} points (cards {cards} + marriages "
                      "{marriages}), {tricks} tricks"),
    "lizany.wins": ("vyhrává {name}", "{name} wins"),
    "lizany.more": ("víc bodů", "more points"),
    "lizany.last_trick": ("stejně bodů, rozhoduje poslední štych",
                          "equal points: the last trick decides"),
    "lizany.no_trick": ("soupeř nevzal žádný štych: dvojnásob",
                        "the loser took no trick: double"),
    "role.forhont": ("forhont", "forehand"),
    "role.forhond": ("forhond", "forehand"),
    "role.middlehand": ("zadák", "middlehand"),
    "role.dealer": ("rozdávající", "dealer"),
    "role.third": ("třetí", "third hand"),  # the dealer's seat of a four-player deal
    "role.sitting_out": ("rozdává, nehraje", "deals, sits out"),
    "position.holder": ("drží", "holds the bid"),
    "position.challenger": ("licituje", "bids"),
    "trick": ("štych", "trick"),
    "trick_no": ("{no}. štych", "trick {no}"),
    "takes": ("bere {name}", "{name} takes it"),
    "takes.you": ("berete vy", "you take it"),
    "marriage.short": ("hláška {points}", "marriage {points}"),
    "tricks_of_deal": ("Štychy", "Tricks"),
    "history": ("Průběh rozdání", "The deal so far"),
    "history.seat": ("Tahy hráčů", "Each player's moves"),
    "settlement": ("Vyúčtování", "Settlement"),
    "partie": ("Partie", "Partie"),
    "series": ("Žebříček", "Series"),
    "stats": ("Statistika", "Statistics"),
    "review": ("Rozbor rozdání", "Review of the deal"),
    "review.dealt": ("karty, jak byly rozdány", "hands as dealt"),
    # while the partie goes on the review opens only what the human saw (session._public)
    "review.known": ("známé karty: vaše rozdané, zahrané a talon, který jste viděli",
                     "known cards: yours as dealt, those played, a talon you saw"),
    "review.taken": ("vzatý talon", "talon taken up"),
    "review.talon": ("talon", "talon"),
    "review.talon.lizany": ("balíček (pořadí lízání)", "stock (in drawing order)"),
    "review.show": ("rozbor", "review"),
    "review.close": ("zavřít", "close"),
    "banner.deal_over": ("Konec rozdání", "The deal is over"),
    "banner.partie_over": ("Konec partie", "The partie is over"),
    "banner.last_trick": ("Poslední štych", "The last trick"),
    "none": ("—", "—"),
    # buttons
    "btn.undo": ("zpět", "undo"),
    "btn.next": ("další rozdání", "next deal"),
    "btn.new": ("nová partie", "new partie"),
    "btn.skip": ("přeskočit roboty", "skip the robots"),
    "btn.hint": ("poradit", "hint"),
    "btn.rules": ("pravidla", "rules"),
    "btn.setup": ("nová hra…", "new game…"),
    "btn.start": ("začít", "start"),
    "btn.cancel": ("zrušit", "cancel"),
    "hint": ("robot by hrál: {what}", "a robot would: {what}"),
    "keys.title": ("Klávesnice", "Keyboard"),
    "keys": ("←/→ karta, Enter nebo mezerník ji zahraje, 1–9 volby v pořadí, H poradit, "
             "U zpět, S přeskočit roboty, N další rozdání, Esc zavřít okno",
             "←/→ a card, Enter or Space plays it, 1–9 the choices in order, H hint, "
             "U undo, S skip the robots, N next deal, Esc closes a window"),
    # the status line
    "status.trump": ("zvolte trumf", "choose the trump card"),
    "status.contract": ("zvolte hru", "choose the contract"),
    "status.discard": ("odložte dvě karty do talonu", "discard two cards to the talon"),
    "status.play": ("hrajte kartu", "play a card"),
    "status.bid": ("licitujte, nebo dejte pas", "bid or pass"),
    "status.hold": ("držte, nebo dejte pas", "hold or pass"),
    "status.lone_bid": ("licitujte sám, nebo dejte pas", "bid alone or pass"),
    "status.game": ("zvolte hru", "announce the game"),
    "status.trumps": ("zvolte trumfy", "name the trumps"),
    "status.helping": ("zvolte pomocnou barvu", "name the helping suit"),
    "status.lead": ("vyneste kartu lícem dolů", "lay the face-down lead"),
    "status.barva": ("dobrá, nebo špatná", "good or bad"),
    "status.betl_answer": ("dobrá, nebo durch", "good or durch"),
    "status.announce": ("ohlaste hru", "announce your game"),
    "status.your_turn": ("jste na tahu", "your turn"),
    "status.only": ("jediná možnost: {action}", "your only choice: {action}"),
    "status.robot": ("hraje {name}…", "{name} to move…"),
    # the robots' warm-ups and the table's own kernels (session.warm_table) alike
    "status.compiling": ("stůl se připravuje: překládá se kód robotů a hry (poprvé na tomto "
                         "počítači, pak zůstane na disku; až několik minut)…",
                         "the table is getting ready: compiling the robots' and the game's "
                         "code (first use on this machine, kept on disk afterwards; up to a "
                         "few minutes)…"),
    "status.next_deal": ("rozdání skončilo", "the deal is over"),
    "status.partie_over": ("partie skončila", "the partie is over"),
    "status.following": ("sledujete: hraje se v jiné kartě", "following: another tab plays"),
    # a move of a partie that another tab replaced by a new one meanwhile
    "error.new_partie": ("mezitím začala nová partie (v jiné kartě): tah neplatí, je "
                         "zobrazena nová", "a new partie was started meanwhile (in another "
                         "tab): the move does not count, the new one is shown"),
    # the contract line
    "actor": ("aktér: {name}", "actor: {name}"),
    "trumps": ("trumfy: {suit}", "trumps: {suit}"),
    "your_trump_card": ("váš trumf: {card}", "your trump card: {card}"),
    "contract.suit": ("barva", "suit game"),
    "contract.betl": ("betl", "betl"),
    "contract.durch": ("durch", "durch"),
    "contract.open_betl": ("otevřený betl", "open betl"),
    "contract.open_durch": ("otevřený durch", "open durch"),
    "announce.hra": ("hra", "game"),
    "announce.sedma": ("sedma", "seven"),
    "announce.sto": ("sto", "hundred"),
    "announce.sto_sedma": ("sto a sedma", "hundred and seven"),
    "bet.game": ("hra", "game"),
    "bet.seven": ("sedma", "seven"),
    "bet.seven_against": ("sedma proti", "seven against"),
    "bet.hundred_against": ("sto proti", "hundred against"),
    "bet.silent_seven": ("tichá sedma", "silent seven"),
    # why a card is not legal now (RULES.md §4, §6; LICITOVANY.md §5, §7)
    "why.not_your_turn": ("nejste na tahu", "it is not your turn"),
    "why.phase": ("teď se karty nehrají", "no card is played now"),
    "why.follow": ("musíte přiznat barvu ({suit})", "you must follow suit ({suit})"),
    "why.beat": ("musíte přebít, máte vyšší kartu v barvě",
                 "you must beat the trick: you hold a higher card of the suit"),
    "why.trump": ("nemáte barvu: musíte trumfnout", "you cannot follow: you must trump"),
    "why.beat_trump": ("musíte přebít nejvyšší trumf ve štychu",
                       "you must beat the highest trump in the trick"),
    "why.seven": ("trumfovou sedmu hrajete až v posledním štychu (nebo když nic jiného nejde)",
                  "the trump seven waits for the last trick (unless nothing else is legal)"),
    "why.ace_ten": ("eso ani desítku nelze odložit do talonu",
                    "an ace or a ten may not go to the talon"),
    "why.trump_card": ("trumfovou kartu nelze odložit", "the trump card may not be discarded"),
    "why.reserved_seven": ("sedmu, kterou hrajete, nelze odložit",
                           "the seven you play may not be discarded"),
    "why.rule": ("pravidla ji teď nedovolují", "the rules do not allow it now"),
    # the start form
    "setup.title": ("Nová partie", "New partie"),
    "setup.game": ("hra", "game"),
    "setup.robot": ("robot {n}", "robot {n}"),
    "setup.seat": ("vaše místo", "your seat"),
    "setup.players": ("hráčů", "players"),
    "setup.deals": ("počet rozdání", "deals"),
    "setup.tariff": ("sazebník", "tariff"),
    "tariff.home": ("domácí (betl 5, durch 10)", "home (betl 5, durch 10)"),
    "tariff.csm": ("ČSM (betl 15, durch 30)", "ČSM (betl 15, durch 30)"),
    "setup.max_flek": ("nejvyšší flek", "highest flek"),
    "setup.speed": ("rychlost robotů", "robots' speed"),
    "speed.slow": ("pomalu", "slow"),
    "speed.normal": ("normálně", "normal"),
    "speed.fast": ("rychle", "fast"),
    "robot.random": ("náhodný", "random"),
    "robot.table": ("stolní", "table"),
    "robot.net": ("naučená síť", "trained network"),
    "robot.pimc": ("hledající (PIMC)", "searching (PIMC)"),
    "robot.strong": ("nejsilnější", "strongest"),
    "rules.title": ("Pravidla", "Rules"),
    # settlement words
    "end.played": ("dohráno", "played out"),
    "end.conceded": ("obrana hru vzdala", "the defence conceded"),
    # RULES.md §5.4: sedma, the defence flekked only the game, no re: lost flekked game
    # and won seven cancel
    "end.sedma_not_played": ("nehrálo se: obrana flekovala jen hru, nikdo neplatí",
                             "not played: the defence flekked only the game, nobody pays"),
    "res.sedma_not_played": ("prohraná hra a vyhraná sedma se ruší",
                             "the lost game and the won seven cancel out"),
    "end.decided_early": ("rozhodnuto před posledním štychem",
                          "decided before the last trick"),
    "end.laid_down": ("karty položeny", "the cards were laid down"),
    "end.no_bid": ("nikdo nelicitoval, nikdo neplatí", "nobody bid, nobody pays"),
    "end.fold": ("složeno za omyl", "folded"),
    "end.show": ("obránce ukázal pomocnou barvu", "a defender showed the helping suit"),
    "end.bare_game_flek": ("jen flek na hru: nehraje se, nikdo neplatí",
                           "a bare game flek: not played, nobody pays"),
    "res.betl.won": ("aktér nevzal žádný štych", "the actor took no trick"),
    "res.betl.lost": ("aktér vzal štych", "the actor took a trick"),
    "res.durch.won": ("aktér vzal všechny štychy", "the actor took every trick"),
    "res.durch.lost": ("aktér ztratil štych", "the actor lost a trick"),
    "res.seven.won": ("sedma vzala poslední štych", "the trump seven took the last trick"),
    "res.seven.lost": ("sedma nevzala poslední štych",
                       "the trump seven did not take the last trick"),
    "res.seven_against.won": ("sedma obrany vzala poslední štych",
                              "the defence's seven took the last trick"),
    "res.seven_against.lost": ("sedma obrany nevzala poslední štych",
                               "the defence's seven did not take the last trick"),
    # LICITOVANY.md §8: the helping seven must take trick 9 and the trump seven trick 10
    "res.two_sevens.won": ("pomocná sedma vzala 9. štych a trumfová sedma poslední",
                           "the helping seven took trick 9 and the trump seven the last trick"),
    "res.two_sevens.lost": ("pomocná sedma nevzala 9. štych nebo trumfová sedma poslední",
                            "the helping seven did not take trick 9, or the trump seven the "
                            "last trick"),
    "res.points": ("{a} : {d} bodů", "{a} : {d} points"),
    # RULES.md §6: a trump seven played before the last trick is lost, whatever follows
    "res.seven.early": ("trumfová sedma zahrána před posledním štychem",
                        "the trump seven was played before the last trick"),
    # RULES.md §9: a hundred counts the card points and the side's first marriage only
    "res.hundred": ("{side} {cards} + hláška {first} = {counted} bodů",
                    "{side} {cards} + marriage {first} = {counted} points"),
    "won": ("vyhráno", "won"),
    "lost": ("prohráno", "lost"),
    "side.actor": ("aktér", "the actor"),
    "side.defence": ("obrana", "the defence"),
    "settle.head": ("{name}: {contract}", "{name}: {contract}"),
    "settle.points": ("body: aktér {ac} + hlášky {am}, obrana {dc} + hlášky {dm}",
                      "points: actor {ac} + marriages {am}, defence {dc} + marriages {dm}"),
    "settle.bet": ("{bet}: {outcome}{why} {amount}", "{bet}: {outcome}{why} {amount}"),
    "settle.silent_hundred": (" (tiché sto: {side})", " (silent hundred: {side})"),
    "settle.silent_seven": (" ({name}, {side})", " ({name}, {side})"),
    "settle.payments": ("platby: {list}", "payments: {list}"),
    "settle.hearts": ("v červených vše dvojnásob", "hearts: every amount doubled"),
    "settle.hearts.licitovany": ("v červených hra, sedma a stovka dvojnásob",
                                 "hearts: the game, seven and hundred doubled"),
    "settle.per_defender": ("od každého obránce: {net}", "per defender: {net}"),
    "settle.cap": ("strop 50,-: {net} → {amount}", "cap: {net} → {amount}"),
    "settle.laid": ("položená hra: {name} platí za oba {amount}",
                    "laid game: {name} pays for both {amount}"),
    # statistics
    "stats.deals.one": ("rozdání", "deal"),
    "stats.deals.few": ("rozdání", "deals"),
    "stats.deals.many": ("rozdání", "deals"),
    "stats.per_deal": ("{amount} na rozdání", "{amount} per deal"),
    "stats.head": ("{game}: {parties}, {deals}, {per_deal}", "{game}: {parties}, {deals}, "
                   "{per_deal}"),
    "stats.played": ("hráno", "played"),
    "stats.won": ("vyhráno", "won"),
    "stats.parties.one": ("partie", "partie"),  # Czech: 1 partie, 2–4 partie, 5 partií
    "stats.parties.few": ("partie", "parties"),
    "stats.parties.many": ("partií", "parties"),
    "stats.unfinished.one": ("nedohraná", "unfinished"),
    "stats.unfinished.few": ("nedohrané", "unfinished"),
    "stats.unfinished.many": ("nedohraných", "unfinished"),
    "stats.players.one": ("hráč", "player"),  # Czech: 2–4 hráči, 5 hráčů
    "stats.players.few": ("hráči", "players"),
    "stats.players.many": ("hráčů", "players"),
    "stats.contract": ("hra", "contract"),
    "stats.none": ("zatím žádná uložená partie", "no saved partie yet"),
    # the series table
    "series.week": ("týden {key}", "week {key}"),
    "series.month": ("měsíc {key}", "month {key}"),
    "series.player": ("hráč", "player"),
    "series.total": ("součet", "total"),
    "series.parties": ("partie", "parties"),  # a column of counts, lowercase as its neighbours
    "series.wins": ("výhry", "wins"),
    "series.empty": ("žádná dohraná partie", "no finished partie"),
    "series.skipped": ("vynecháno {file}: {error}", "skipped {file}: {error}"),
    # the terminal table
    "term.player": ("hráč", "player"),
    "verb.trump": ("trumf", "trump card"),
    "verb.discard": ("odložit", "discard"),
    "verb.play": ("hrát", "play"),
    "verb.lead": ("vynést lícem dolů", "lead face down"),
    "term.role": ("role", "role"),
    "term.hand": ("ruka: ", "hand: "),
    "term.last": ("poslední štych: ", "last trick: "),
    "term.prompt": ("tah 1-{n}{undo} · ? = nápověda · q = konec > ",
                    "move 1-{n}{undo} · ? = help · q = quit > "),
    "term.undo": (" · u = zpět", " · u = undo"),
    "term.error": ("chyba: ", "error: "),
    "term.undone": ("vzato zpět", "undone"),
    "term.bad": ("'{answer}' není tah: čekám 1..{n}{undo}, h, ? nebo q",
                 "'{answer}' is not a move: expected 1..{n}{undo}, h, ? or q"),
    "term.help": ("1..{n} = zahrát tah s tím číslem · h = poradit (co by hrál robot, jen "
                  "z vašich karet) · u = vzít zpět poslední tah, dokud nehraje robot · "
                  "q = konec (odehraná rozdání jsou uložena) · ? = tato nápověda",
                  "1..{n} = make the move of that number · h = hint (what a robot would "
                  "do, from your cards only) · u = take back your last move before a "
                  "robot acts · q = quit (finished deals are saved) · ? = this help"),
    "term.next": ("Enter = další rozdání · q = konec > ", "Enter = next deal · q = quit > "),
    "term.over": ("konec partie", "the partie is over"),
    "term.week": ("týden {key}: {place}. {name} {total}", "week {key}: {place}. {name} {total}"),
    "term.records": ("záznam: {path}", "records: {path}"),
    "term.unfinished": ("žádné rozdání nedohráno, záznam nezapsán; rozehraná partie: {path} "
                        "(pokračovat: --resume)",
                        "no deal finished, no records written; the partie so far: {path} "
                        "(go on with --resume)"),
    "term.nothing": ("žádné rozdání nedohráno: nic neuloženo", "no deal finished: nothing saved"),
}


def t(key: str, lang: str = "cz", /, **fields: Any) -> str:
    """The message ``key`` in ``lang`` with its ``{fields}`` filled in (positional, so
    that a field may be named ``key``, as the terminal's week line's is)."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}: expected one of {LANGS}")
    try:
        text = MESSAGES[key][LANGS.index(lang)]
    except KeyError:
        raise KeyError(f"no message {key!r} in the table's catalogue") from None
    return text.format(**fields) if fields else text


def robot_word(spec: str, lang: str = "cz") -> str:
    """A robot spec as the table names it in ``lang``: its word (``robot.SPEC``) where the
    catalogue has one, the spec itself otherwise (``onnx:PATH``, ``nnpimc(...)``)."""
    return t(f"robot.{spec}", lang) if f"robot.{spec}" in MESSAGES else spec


def both(key: str, /, **fields: Any) -> dict[str, str]:
    """``{"cz", "en"}``: the message in both languages (a field may itself be such a
    pair, then each language takes its own)."""
    return {lang: t(key, lang, **{k: v[lang] if isinstance(v, dict) else v
                                  for k, v in fields.items()}) for lang in LANGS}


def bet_why(bet: str, won: bool, s: dict[str, Any], lang: str,
            facts: dict[str, Any] | None = None) -> str:
    """`` — why`` a bet (or licitovaný component) ended as it did, from the settlement's
    own figures and the deal's ``facts`` (TableView.facts): the tricks that decide betl,
    durch and a seven (RULES.md §6), a hundred's counted points, else the points (§10).
    How the deal ended (laid down, conceded) is the reason only where it decided."""
    bet = bet.replace("open_", "")
    end, facts = s["end"], facts or {}
    seven = {"silent_seven": "seven"}.get(bet, bet)  # its own side's: won = it took trick 10
    fell = facts.get("seven_trick", -1)
    if seven in ("seven", "seven_against") and 0 <= fell < 9 and end in ("played",
                                                                         "laid_down"):
        return " — " + t("res.seven.early", lang)  # lost before any lay-down (§6)
    p = s.get("points")
    if end == "laid_down" and p and bet in ("game", "hundred_against"):
        return _points_why(bet, s, lang, facts)  # the lay-down gave tricks, points decided
    if end == "sedma_not_played":  # both bets settled, and they cancel (§5.4)
        return " — " + t("res.sedma_not_played", lang)
    if end not in ("played", "decided_early") or end == "decided_early" and \
            bet not in ("betl", "durch"):
        return " — " + t(f"end.{end}", lang)
    if seven in ("betl", "durch", "seven", "seven_against", "two_sevens"):
        return " — " + t(f"res.{seven}.{'won' if won else 'lost'}", lang)
    return _points_why(bet, s, lang, facts) if p else ""


def _points_why(bet: str, s: dict[str, Any], lang: str, facts: dict[str, Any]) -> str:
    """The points that decided a game or a hundred: an announced hundred (volený's sto,
    sto proti) by its side's card points and first marriage (RULES.md §9), else both sides'
    points with every marriage."""
    p = s["points"]
    side = "defence" if bet == "hundred_against" else "actor"
    if bet == "hundred_against" or s.get("announcement") in ("sto", "sto_sedma"):
        cards, marr = p[f"{side}_cards"], p[f"{side}_marriages"]
        first = facts.get("first", {}).get(side)
        if first is None and marr in (0, 20, 40):  # one marriage (or none): it is the first
            first = marr
        if first is not None:
            return " — " + t("res.hundred", lang, side=t(f"side.{side}", lang), cards=cards,
                             first=first, counted=cards + first)
    return " — " + t("res.points", lang, a=p["actor_cards"] + p["actor_marriages"],
                     d=p["defence_cards"] + p["defence_marriages"])


# A unit's forms by count (the table's one plural rule): Czech 1 / 2–4 / 0 and 5 or more
# (genitive plural) / a fraction (genitive singular: "15,6 groše"), by the absolute value;
# English 1 / any other.  GameKind.units names the unit (lízaný's registry says "reward").
UNIT_FORMS = {
    "groše": (("groš", "groše", "grošů", "groše"), ("groš", "groše", "groše", "groše")),
    "desetníky": (("desetník", "desetníky", "desetníků", "desetníku"),
                  ("desetník", "desetníky", "desetníky", "desetníky")),
    "výhry": (("výhra", "výhry", "výher", "výhry"), ("win", "wins", "wins", "wins")),
}
UNIT_FORMS["reward"] = UNIT_FORMS["výhry"]
FORMS = ("one", "few", "many", "frac")


def plural(n: float, lang: str = "cz") -> str:
    """The form a count ``n`` takes: ``one``, ``few`` (Czech 2–4), ``many`` (0, 5 and
    more; English: every count but 1) or ``frac`` (a fraction)."""
    a = abs(n)
    if a != int(a):
        return "frac" if lang == "cz" else "many"
    if a == 1:
        return "one"
    return "few" if lang == "cz" and 2 <= a <= 4 else "many"


def number(n: float, lang: str = "cz", sign: bool = True) -> str:
    """``n`` as the table writes it: ``+42``, ``0``, ``-15,6`` (a Czech decimal comma),
    at most two decimals."""
    text = f"{n:+.2f}".rstrip("0").rstrip(".") if n != int(n) else f"{int(n):+d}"
    text = "0" if n == 0 else text if sign else text.lstrip("+")
    return text.replace(".", ",") if lang == "cz" else text


def amount(n: float, unit: str, lang: str = "cz", sign: bool = True) -> str:
    """``n`` of ``unit`` (GameKind.units) agreeing with it: ``+42 grošů``, ``-1 groš``,
    ``+3 groše``, ``-15,6 groše``, ``+1 win``."""
    word = UNIT_FORMS[unit][LANGS.index(lang)][FORMS.index(plural(n, lang))]
    return f"{number(n, lang, sign)} {word}"


def count(n: int, key: str, lang: str = "cz") -> str:
    """``n`` and the catalogue's word ``key.one|few|many`` for it (``3 partie``)."""
    form = plural(n, lang).replace("frac", "many")
    return f"{n} {t(key + '.' + form, lang)}"


def one_of(words: list[str], lang: str = "cz") -> str:
    """The alternatives in words: ``a, b, nebo c`` (Czech puts a comma before "nebo"),
    ``a, b or c``."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])}{', nebo ' if lang == 'cz' else ' or '}{words[-1]}"


def flek_prompt(choices: list[dict[str, str]]) -> dict[str, str]:
    """``{"cz", "en"}``: a flek turn's prompt naming exactly the moves on offer (RULES.md
    §5.3: a bet the partner raised this round cannot be raised again, so a turn may offer
    no flek at all): the level words of the fleks offered ("flek", "re"), the
    announcements, and the closing "dobrá" (licitovaný's "dobrý") last."""
    out = {}
    for lang in LANGS:
        sep = " na " if lang == "cz" else " on "
        words: list[str] = []
        last = []
        for c in choices:
            w = c[lang].split(sep)[0] if c["label"].startswith("flek:") else c[lang]
            w = w.split(" (")[0]  # licitovaný's "good (no more flek)": the word alone
            if c["label"] == "good":
                last.append(w)
            elif w not in words:
                words.append(w)
        out[lang] = one_of(words + last, lang)
    return out


def catalogue() -> dict[str, dict[str, str]]:
    """``{"cz": {key: text}, "en": {key: text}}`` for the page, with the card names
    (``card.<code>``) and the suits (``suit.<s>``)."""
    from ..cards import CARD_CODES

    out: dict[str, dict[str, str]] = {lang: {} for lang in LANGS}
    for i, lang in enumerate(LANGS):
        out[lang].update({k: v[i] for k, v in MESSAGES.items()})
        out[lang].update({f"card.{c}": card_name(c, lang) for c in CARD_CODES})
        out[lang].update({f"suit.{s}": (SUIT_CZ if lang == "cz" else SUIT_EN)[s]
                          for s in SUITS})
        out[lang].update({f"index.{r}": INDEX[lang][k] for k, r in enumerate("789TJQKA")})
    return out


__all__ = ["LANGS", "MESSAGES", "card_name", "card_names", "t", "both", "bet_why", "catalogue",
           "one_of", "flek_prompt",
           "plural", "number", "amount", "count"]
