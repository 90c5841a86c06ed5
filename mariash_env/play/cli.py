"""``mariash play`` (sit at the table with robots) and ``mariash serve-robot`` (a robot
as an HTTP service).  Also ``python -m mariash_env.play [play options]``.
``mariash dataset``, ``mariash ladder`` and ``mariash best-response`` are the research tools of
``mariash_env.research`` (each with its own ``--help``).

Bad input gets one ``error: …`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..cli import ArgumentParser, fail, nonnegative, quiet_on_closed_pipe
from ..compile import announce_anywhere
from ..extras import MissingExtraError, require
from ..games.registry import game_kind, games
from .session import (
    TABLE_GAMES,
    PlayError,
    PlaySession,
    check_rules,
    check_save_dir,
    latest_unfinished,
    parse_robots,
)
from .tables import open_table, resume_table

DEFAULT_SAVE = Path.home() / ".mariash" / "parties"


def _port(text: str) -> int:
    try:
        p = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid port {text!r}: expected 1..65535") from None
    if not 1 <= p <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {p}: expected 1..65535")
    return p


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid workers {text!r}: expected an int >= 1") \
            from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"invalid workers {n}: expected an int >= 1")
    return n


def _play_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--robots", default=None,
                    help="two robots (three with --players 4): table, random, net (the best "
                         "network), strong (the strongest: network and search), pimc, "
                         "onnx:PATH; every game has them (default table for each)")
    ap.add_argument("--players", type=int, default=3, choices=(3, 4),
                    help="4: volený's four-player table, the dealer sitting out each deal "
                         "(you and three robots)")
    ap.add_argument("--rules", default="voleny",
                    help="voleny (the default), licitovany or lizany (two players: you and "
                         "the first robot)")
    ui = ap.add_mutually_exclusive_group()
    ui.add_argument("--web", action="store_true", help="the browser table (the default)")
    ui.add_argument("--terminal", action="store_true", help="the terminal table")
    ap.add_argument("--lang", choices=("cz", "en"), default="cz",
                    help="terminal: Czech (the default) or English (the page has a switch)")
    # seat 1 is the first deal's forehand (the first dealer is seat 0, RULES.md §2): you
    # choose trumps first, as the page's new-partie form sets it up
    ap.add_argument("--seat", type=int, default=1, choices=(0, 1, 2, 3),
                    help="your seat: 1 (the default) is forehand in the first deal, 0 its "
                         "dealer (3: at four players only)")
    ap.add_argument("--name", default="you", help="your name in the series table")
    ap.add_argument("--seed", type=nonnegative(int), default=None,
                    help="shuffle of the partie (an int >= 0)")
    ap.add_argument("--save-dir", type=Path, default=DEFAULT_SAVE,
                    help=f"where parties are saved (default {DEFAULT_SAVE})")
    ap.add_argument("--resume", action="store_true",
                    help="go on with the last unfinished partie in --save-dir (its robots)")
    ap.add_argument("--host", default="127.0.0.1", help="web: address to bind")
    ap.add_argument("--port", type=_port, default=8000, help="web: port (default 8000)")
    ap.add_argument("--no-browser", action="store_true", help="web: do not open a browser")


def _play_extra(what: str, *modules: str) -> None:
    """Before anything is set up: the ``play`` extra's ``modules`` for ``what``, or one
    ``error:`` line naming the extra (exit status 2)."""
    try:
        require("play", what, *modules)
    except MissingExtraError as e:
        fail(e)


def play(args: argparse.Namespace) -> int:
    announce_anywhere()  # a robot's first build on an empty numba cache: minutes, said
    if args.terminal:
        _play_extra("the terminal table", "rich")
    else:
        _play_extra("the browser table", "starlette", "uvicorn")
    try:
        check_rules(args.rules, TABLE_GAMES)
        seats = game_kind(args.rules).players
        if args.players == 4 and 4 not in seats:  # before the robots, which it counts
            raise PlayError(f"--players 4 is volený's four-player table: {args.rules} is "
                            f"played by {' or '.join(map(str, seats))} players")
        count = 3 if args.players == 4 else 2
        # lízaný seats one robot: one named, or two (the first sits)
        robots = parse_robots(args.robots or ",".join(["table"] * count),
                              (1, 2) if seats[0] == 2 else count)
        first_options = {"players": 4} if args.players == 4 else None

        def new_session(setup: dict | None = None) -> PlaySession:
            """A partie as the command line set it up, or as the page's ``setup`` chose
            (rules, robots, seat, options; a fresh shuffle)."""
            if setup is None:
                return open_table(robots, save_dir=args.save_dir, human_seat=args.seat,
                                  name=args.name, seed=args.seed, rules=args.rules,
                                  options=first_options)
            return open_table(setup.get("robots", robots), save_dir=args.save_dir,
                              human_seat=setup.get("seat", args.seat), name=args.name,
                              rules=check_rules(setup.get("rules", args.rules), TABLE_GAMES),
                              options=setup.get("options"))

        if args.resume:
            check_save_dir(args.save_dir)  # a file there: said as without --resume
            unreadable: list[str] = []
            path = latest_unfinished(args.save_dir, unreadable)
            if path is None:
                raise PlayError(f"no unfinished partie in {args.save_dir} to resume" + (
                    f"; unreadable: {', '.join(unreadable)}" if unreadable else ""))
            first = resume_table(path)
        else:
            first = new_session()  # bad robots or an unwritable folder fail here
    except (PlayError, OSError, MissingExtraError) as e:  # a robot of a missing extra
        fail(" ".join(str(e).split("\n")))  # one line, whatever a file held
    if args.terminal:
        from .terminal import run_terminal

        return run_terminal(first, lang=args.lang)
    from .web import serve

    sessions = iter([first])
    try:
        serve(lambda setup=None: (next(sessions, None) if setup is None else None)
              or new_session(setup), args.host, args.port,
              open_browser=not args.no_browser)
    except OSError as e:  # the address: a port in use, an unknown host
        fail(e)
    return 0


def serve_robot(args: argparse.Namespace) -> int:
    _play_extra("the robot service", "starlette", "uvicorn")
    announce_anywhere()  # its log, not a terminal: minutes of compiling before it listens
    from .service import serve_robot as run

    try:
        return run(args.robot, host=args.host, port=args.port, rules=args.rules,
                   workers=args.workers)
    except (ValueError, OSError, MissingExtraError) as e:
        fail(e)


# Research tools (mariash_env.research): each parses its own options.
RESEARCH = {"dataset": "play deals with robots and write one row per decision (Parquet)",
            "ladder": "rate every robot of every game from duplicate matches",
            "best-response": "train a best response to a robot: how exploitable it is"}


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in RESEARCH:
        import importlib

        mod = importlib.import_module(f"mariash_env.research.{argv[0].replace('-', '_')}")
        return mod.main(argv[1:], prog=f"mariash {argv[0]}")
    ap = ArgumentParser(prog="mariash", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True, parser_class=ArgumentParser,
                            help="the command (mariash COMMAND --help: its options)")
    for name, text in RESEARCH.items():
        sub.add_parser(name, help=text, add_help=False)
    p = sub.add_parser("play", help="sit at the table with robots: two, one in lízaný, three "
                                    "with --players 4")
    _play_args(p)
    r = sub.add_parser("serve-robot",
                       help="answer seat records or observation+mask requests with a robot")
    r.add_argument("robot", help="a robot of --rules: table, random, net, strong, pimc or "
                                 "onnx:PATH (volený's and licitovaný's pimc and strong "
                                 "answer seat records only; lízaný's play from the "
                                 "observation)")
    r.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    r.add_argument("--port", type=_port, default=8765, help="port (default 8765)")
    r.add_argument("--rules", default="voleny", choices=[k.name for k in games("service")],
                   help="the game the robot plays (default voleny)")
    r.add_argument("--workers", type=_workers, default=1,
                   help="processes answering side by side, each with its own robot "
                        "(default 1)")
    args = ap.parse_args(argv)
    return play(args) if args.command == "play" else serve_robot(args)


if __name__ == "__main__":
    sys.exit(main())
