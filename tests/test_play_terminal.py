"""The terminal table (mariash_env.play.terminal) driven by scripted input."""

from __future__ import annotations

import io
import re

import pytest

pytest.importorskip("rich")
from rich.console import Console  # noqa: E402

from mariash_env.play.session import PlaySession  # noqa: E402
from mariash_env.play.tables import open_table  # noqa: E402
from mariash_env.play.terminal import TerminalTable  # noqa: E402


def _table(tmp_path, answers):
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=120)
    s = PlaySession("table,random", save_dir=tmp_path, seed=5, human_seat=1)
    prompts = []

    def read(prompt):
        prompts.append(prompt)
        return next(answers)

    return TerminalTable(s, console=console, read=read), s, out, prompts


def test_a_deal_with_a_misclick_undone(tmp_path):
    # seat 1 is forehand: its first move is the trump choice; "9", "x" are refused, "1"
    # picks a trump (which shows the other five cards: no undo then), "1" names the
    # contract, "u" takes that back, then "1" everywhere until the deal ends, "q"
    script = iter(["9", "x", "1", "1", "u"] + ["1"] * 200)
    answers = iter(script)
    t, s, out, prompts = _table(tmp_path, answers)
    first_move = None

    def read(prompt):
        nonlocal first_move
        prompts.append(prompt)
        if s.waiting == "next_deal":
            return "q"
        a = next(answers)
        if a == "u":
            first_move = s.state()["events"][-1]["label"]
        return a

    t.read = read
    assert t.run() == 0
    text = out.getvalue()
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert "chyba: '9' není tah: čekám 1..8, h, ? nebo q" in plain  # 7 cards + z lidu
    assert "chyba: 'x' není tah" in plain
    assert "vzato zpět" in plain
    assert "u = zpět" in prompts[4] and "u = zpět" not in prompts[0] + prompts[3]
    assert first_move == "contract:suit"
    # the undo left the contract to name again, and the same choice was made again
    labels = [e["label"] for e in s.state()["events"]]
    assert labels.count(first_move) == 1
    assert "Vyúčtování" in plain and "platby: " in plain
    assert s.waiting == "next_deal" and len(s.game.records) == 1
    assert "\x1b[" in text  # cards in colour, named in Czech (no English word on a line)
    assert re.search(r"(červen|kulov|zelen|žaludsk)(á|ý|é) (sedma|osma|devítka|desítka|"
                     r"spodek|svršek|král|eso)", plain)
    assert "robot stolní: hraje" in plain and "robot náhodný: hraje" in plain
    assert not re.search(r"\b(play|trick|hand|settlement|payments)\b", plain)


def test_quit_at_once_and_a_numbered_move_list(tmp_path):
    t, s, out, prompts = _table(tmp_path, iter(["q"]))
    assert t.run() == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert "  1. trumf: " in plain and "  8. z lidu" in plain
    assert s.move == 0


@pytest.mark.parametrize("lang,words", [("cz", ("h = poradit", "robot by hrál: ")),
                                          ("en", ("h = hint", "a robot would: "))])
def test_help_and_a_hint_change_nothing(tmp_path, lang, words):
    # "?" lists the commands, "h" names the hint robot's move from the human's seat (the
    # session's own hint, as the browser's button), and neither makes a move
    t, s, out, prompts = _table(tmp_path, iter(["?", "h", "q"]))
    t.lang = lang
    hint = s.hint(s.id, s.move)[lang]
    assert t.run() == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    help_word, hint_word = words
    assert help_word in plain and "1..8" in plain
    assert hint_word + hint in plain
    assert s.move == 0 and len(prompts) == 3 and "?" in prompts[0]


def test_the_terminal_in_english(tmp_path):
    t, s, out, prompts = _table(tmp_path, iter(["q"]))
    t.lang = "en"
    assert t.run() == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert "  1. trump card: " in plain and " of " in plain and "  8. trumps blind" in plain
    assert "q = quit" in prompts[0] and "robot" in plain


def test_licitovany_deal_in_the_terminal(tmp_path):
    # LICITOVANY.md §4-§9 at the terminal: the auction worded, numbered legal moves, undo,
    # the settlement in desetníky
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=160)
    s = PlaySession("table,table", save_dir=tmp_path, seed=3, human_seat=1, rules="licitovany")
    script = iter(["x", "1", "1", "u"] + ["1"] * 300)  # a bid takes the talon: undo a discard

    def read(prompt):
        if s.waiting == "next_deal":
            return "q"
        return next(script)

    assert TerminalTable(s, console=console, read=read).run() == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert "licitace" in plain and "vy: licit: " in plain
    # both robots passed: nobody is shown holding or challenging (issue #33)
    assert "licituje" not in plain and "drží" not in plain
    assert "chyba: 'x' není tah" in plain and "vzato zpět" in plain
    assert "desetníky" in plain and "Vyúčtování" in plain
    assert "od každého obránce" in plain
    assert "robot stolní (0): pas" in plain or "robot stolní (0): licit:" in plain
    assert s.waiting == "next_deal" and len(s.game.records) == 1


def test_the_four_player_table_in_the_terminal(tmp_path):
    """RULES.md §11.3 at the terminal: four rows, the dealer's "deals, sits out", the
    human's deal played and the settlement's four payments."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=160)
    s = PlaySession("table,table,random", save_dir=tmp_path, seed=3, human_seat=1,
                    options={"players": 4, "deals": 1})
    script = iter(["1"] * 300)

    def read(prompt):
        return "q" if s.waiting in ("next_deal", "partie_over") else next(script)

    assert TerminalTable(s, console=console, read=read).run() == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert "rozdává, nehraje" in plain and "forhont" in plain and "třetí" in plain
    assert "robot náhodný" in plain and "Vyúčtování" in plain
    payments = next(line for line in plain.splitlines() if "platby: " in line)
    assert payments.count(",") == 3
    assert s.waiting == "partie_over" and len(s.game.records) == 1


def test_eof_ends_the_line_and_says_where_the_partie_is(tmp_path):
    """EOF or Ctrl-C at a prompt quits as "q" does: the prompt's line ended, the records'
    path said (it was left on the prompt's line, without the path) once a deal has
    finished."""
    from mariash_env.play.terminal import run_terminal

    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=120)
    s = PlaySession("table,random", save_dir=tmp_path, seed=5, human_seat=1,
                    options={"deals": 2})
    script = iter(["1"] * 300)

    def read(prompt):
        console.print(prompt, end="")
        if s.waiting == "next_deal":  # the first deal settled and saved
            raise EOFError
        return next(script)

    assert run_terminal(s, console=console, read=read, robot_delay=0) == 0
    assert s.records_path.exists()
    assert out.getvalue().endswith(f"> \nzáznam: {s.records_path}\n"), out.getvalue()[-200:]


@pytest.mark.parametrize("quit_by", ["q", "eof"])
@pytest.mark.parametrize(("moves", "said"), [
    (0, "žádné rozdání nedohráno: nic neuloženo"),
    (1, "žádné rozdání nedohráno, záznam nezapsán; rozehraná partie: {session} "
        "(pokračovat: --resume)")])
def test_before_any_deal_finished_no_records_file_is_named(tmp_path, quit_by, moves, said):
    """Quitting (q, or the end of the input) before any deal has finished names no
    records file, which was never written (it said "záznam: PATH"): the partie so far
    (the session file, for --resume) once a move is made, else that nothing is saved."""
    from mariash_env.play.terminal import run_terminal

    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=300)
    s = PlaySession("table,random", save_dir=tmp_path, seed=5, human_seat=1)
    script = iter(["1"] * moves)  # seat 1 is forehand: its trump choice

    def read(prompt):
        answer = next(script, None)
        if answer is None and quit_by == "eof":
            raise EOFError
        return answer or "q"

    assert run_terminal(s, console=console, read=read, robot_delay=0) == 0
    assert not s.records_path.exists()
    text = out.getvalue()
    assert "záznam:" not in text and str(s.records_path) not in text
    assert text.endswith(said.format(session=s.session_path) + "\n"), text[-300:]
    assert s.session_path.exists() == (moves > 0)


def test_the_week_table_names_the_players_in_the_tables_language(tmp_path):
    """The partie's end lists the week's series with the names as the table words them
    ("vy", "robot stolní"), not the saved English ones ("you", "robot table")."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=160)
    s = PlaySession("table,random", save_dir=tmp_path, seed=5, human_seat=1,
                    options={"deals": 1})
    assert TerminalTable(s, console=console, read=lambda p: "1", robot_delay=0).run() == 0
    week = [ln for ln in out.getvalue().splitlines() if "týden" in ln]
    assert len(week) == 3, out.getvalue()[-600:]
    assert any("vy" in ln for ln in week) and any("robot stolní" in ln for ln in week)
    assert not any(w in ln for ln in week for w in ("you", "robot table"))


def test_the_lizany_terminal_says_the_cards_left_in_the_stock(tmp_path):
    """Lízaný at the terminal: the cards left in the stock, and the trump card under it,
    printed while the stock lasts (the page shows them on the felt)."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=120)
    s = open_table("table,table", rules="lizany", save_dir=tmp_path, seed=5, human_seat=1)
    assert TerminalTable(s, console=console, read=lambda prompt: "q").run() == 0
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    assert plain.count("v balíčku: 16") == 1 and "trumfová karta: " in plain, plain
