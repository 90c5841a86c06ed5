"""Input validation of the environments and command lines (issue #29, item 9): every bad
input gives a specific exception or one ``error: …`` line (exit status 2) naming what was
wrong and what was expected; never a bare Python or numpy error, never a traceback.

The command lines run in this process through their ``main(argv)``.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import mariash_env
from mariash_env import arena, lizany
from mariash_env.cards import CARD_CODES, CardError, DeckTypeError, parse_deck
from mariash_env.cli import UnwritableError, check_writable
from mariash_env.game import Game, OptionError, check_seed
from mariash_env.single_agent import SingleAgentEnv
from mariash_env.vector import VectorEnv

DECK = list(CARD_CODES)
LONG = "x" * 300  # a file name the system refuses (ENAMETOOLONG): an OSError on any use

ENVS = {
    "voleny": lambda: mariash_env.env(deals=1),
    "licitovany": lambda: mariash_env.env(rules="licitovany", deals=1),
    "four": lambda: mariash_env.env(players=4, deals=1),
    "lizany": lambda: lizany.env(),
    "single_agent": lambda: SingleAgentEnv(deals=1),
}


def reset(name: str, **kw):
    e = ENVS[name]()
    return e.reset(**kw)


def one_line_error(capsys, code, rc: int = 2) -> str:
    """The single ``error: …`` line of a CLI that returned or exited with ``rc``."""
    assert code == rc
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err and "Traceback" not in err, err
    return err


def run_main(main, argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as e:
        return e.code


# --- decks: an ordered sequence only ---------------------------------------------------
UNORDERED = [set(DECK), frozenset(DECK), dict.fromkeys(DECK), (c for c in DECK),
             "".join(DECK), np.arange(32).reshape(4, 8)]


@pytest.mark.parametrize("deck", UNORDERED, ids=lambda d: type(d).__name__)
@pytest.mark.parametrize("name", sorted(ENVS))
def test_an_unordered_deck_is_refused_by_every_reset(name, deck):
    """Issue #29 item 9: a set (whose order differs per process), a dict, a generator, a
    string or a 2-D array as a deck is a TypeError (a CardError too) naming the expected
    sequence, in every game's reset."""
    if isinstance(deck, type(c for c in ())):
        deck = (c for c in DECK)  # a fresh one per case
    with pytest.raises(DeckTypeError, match="a deck must be a sequence of 32 cards") as info:
        reset(name, seed=0, options={"deck": deck})
    assert isinstance(info.value, TypeError) and isinstance(info.value, CardError)
    assert "list, tuple or 1-D numpy array" in str(info.value)


def test_unordered_decks_are_refused_by_game_and_lizany_game():
    """Issue #29 item 9: Game.new_partie, Game.deal_deck and LizanyGame refuse a set deck;
    a set's message says it has no order."""
    with pytest.raises(DeckTypeError, match="a set has no order"):
        Game().new_partie(seed=0, deck=set(DECK))
    with pytest.raises(DeckTypeError):
        Game().deal_deck(frozenset(DECK), 0)
    with pytest.raises(DeckTypeError, match="a dict has no order"):
        lizany.LizanyGame(deck=dict.fromkeys(DECK))


@pytest.mark.parametrize("deck", [DECK, tuple(DECK), np.arange(32), range(32)],
                         ids=["list", "tuple", "ndarray", "range"])
def test_ordered_decks_still_work(deck):
    """Issue #29 item 9: lists, tuples, 1-D arrays and ranges stay accepted, dealt as is."""
    assert parse_deck(deck).tolist() == list(range(32))
    g = Game()
    g.new_partie(seed=0, deck=deck)
    ref = Game()
    ref.new_partie(seed=0, deck=DECK)
    assert np.array_equal(g.st, ref.st)


# --- reset options: a dict or None ------------------------------------------------------
@pytest.mark.parametrize("options", [["deck"], 5, "deck", ("deck", DECK)])
@pytest.mark.parametrize("name", sorted(ENVS))
def test_reset_options_must_be_a_dict(name, options):
    """Issue #29 item 9: ``options=["deck"]`` or ``options=5`` was a bare ValueError /
    TypeError of ``dict()``; now an OptionError naming the accepted keys."""
    with pytest.raises(OptionError, match=r"invalid reset options .*expected a dict with "
                                          r"keys among \['deck'"):
        reset(name, seed=0, options=options)


@pytest.mark.parametrize("name", ["voleny", "lizany"])
def test_unknown_reset_keys_are_named_with_the_accepted_ones(name):
    """Issue #29 item 9: an AEC env warns about an unknown key (PettingZoo's api_test passes
    one) naming the accepted keys; the Gymnasium env refuses it."""
    with pytest.warns(UserWarning, match=r"unknown reset option\(s\) \['foo'\]: expected "
                                         r"keys among \['deck'"):
        reset(name, seed=0, options={"foo": 1})
    with pytest.raises(OptionError, match=r"\['foo'\]: expected keys among \['deck', "
                                          r"'dealer', 'cuts'\]"):
        reset("single_agent", seed=0, options={"foo": 1})


# --- seeds: one check everywhere --------------------------------------------------------
BAD_SEEDS = [1.7, True, np.bool_(True), "3", -1, np.int64(-5)]


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
@pytest.mark.parametrize("name", sorted(ENVS))
def test_bad_seeds_are_refused_by_every_reset(name, seed):
    """Issue #29 item 9: ``lizany.env().reset(seed=-1)`` raised numpy's error and the
    Gymnasium env Gymnasium's; every reset now raises the same OptionError (a ValueError)."""
    with pytest.raises(OptionError, match="invalid seed: seed must be an int"):
        reset(name, seed=seed)


@pytest.mark.parametrize("seed", BAD_SEEDS, ids=repr)
def test_vector_env_reset_checks_its_seed_like_the_constructor(seed):
    """Issue #29 item 9: ``VectorEnv.reset(seed=1.7)`` was accepted though the constructor
    refused 1.5; both now use :func:`check_seed`."""
    with pytest.raises(OptionError, match="invalid seed"):
        VectorEnv(2, seed=seed)
    venv = VectorEnv(2, seed=0, observations=False)
    with pytest.raises(OptionError, match="invalid seed"):
        venv.reset(seed=seed)


def test_numpy_integer_seeds_are_fine_everywhere():
    """Issue #29 item 9: numpy integers are seeds (as Python ints), in every env."""
    assert check_seed(np.int32(4)) == 4 and type(check_seed(np.uint64(4))) is int
    for name in ENVS:
        reset(name, seed=np.int64(4))
    venv = VectorEnv(2, seed=np.int64(3), observations=False)
    venv.reset(seed=np.uint32(4))
    assert venv.seed == 4
    a, b = SingleAgentEnv(deals=1), SingleAgentEnv(deals=1)
    assert np.array_equal(a.reset(seed=np.int64(9))[0], b.reset(seed=9)[0])


def test_a_refused_reset_changes_nothing():
    """Issue #29 item 9: bad options or seeds are refused before anything is changed (the
    Gymnasium env's generator is not reseeded either)."""
    e = SingleAgentEnv(deals=1)
    e.reset(seed=3)
    st, rng = e.game.st.copy(), e.np_random.bit_generator.state
    for kw in ({"seed": 5, "options": 7}, {"seed": -1}, {"seed": 5, "options": {"x": 1}}):
        with pytest.raises(OptionError):
            e.reset(**kw)
    assert np.array_equal(st, e.game.st) and e.np_random.bit_generator.state == rng


# --- the arena's --rule -------------------------------------------------------------------
@pytest.mark.parametrize("value", ["0", "12", "-3", "True", "1.0", "'1'"])
def test_arena_rule_deals_other_than_one_is_refused(capsys, tmp_path, value):
    """Issue #29 item 9: ``--rule deals=0`` was silently replaced by 1; a match plays single
    deals, so any other value is refused naming it (and --deals)."""
    code = run_main(arena.main, ["--deals", "1", "--rule", f"deals={value}", "--quiet",
                                 "--out", str(tmp_path)])
    err = one_line_error(capsys, code)
    assert f"--rule deals={value}" in err and "only deals=1" in err and "--deals" in err
    assert not (tmp_path / "deals.csv").exists()


def test_duplicate_match_refuses_a_rules_dict_with_other_deals():
    """Issue #29 item 9: the library's ``rules={"deals": 0}`` was ignored the same way."""
    with pytest.raises(ValueError, match=r"rule option deals=0: a match plays single deals"):
        arena.duplicate_match({"a": "random"}, deals=1, rules={"deals": 0}, progress=False)
    with pytest.raises(ValueError, match="deals=5"):
        arena.duplicate_match({"a": "random"}, deals=1, rules={"rules": "lizany", "deals": 5},
                              progress=False)


def test_arena_rule_deals_one_and_other_keys_still_work(capsys, tmp_path):
    """Issue #29 item 9: ``--rule deals=1`` stays accepted; a bad value of another key is
    refused naming it."""
    code = run_main(arena.main, ["--deals", "1", "--rule", "deals=1", "--robots", "random",
                                 "--quiet", "--no-plot", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    code = run_main(arena.main, ["--deals", "1", "--rule", "killed_seven=9", "--quiet",
                                 "--out", str(tmp_path)])
    assert "killed_seven" in one_line_error(capsys, code)


@pytest.mark.parametrize("value, key", [
    ("{'a': 1, 'a': 2}", "'a'"),
    ("{'a': {'b': 1, 'b': 1}}", "'b'"),  # at any depth, the same value too
    ("{1: 'x', 1.0: 'y'}", "1.0"),  # one key of a dict: 1 == 1.0
    ('{"a": true, "a": false}', "'a'"),  # JSON (true is no Python literal)
])
def test_arena_rule_refuses_a_key_given_twice(capsys, tmp_path, value, key):
    """A Python-literal dict naming a key twice (``--rule x={'a': 1, 'a': 2}``) was read by
    ast.literal_eval as its last value, silently, where the same in JSON was refused: both
    are one error line naming the option and the key, in jsonio's words, before any deal."""
    code = run_main(arena.main, ["--deals", "1", "--rule", f"x={value}", "--quiet",
                                 "--out", str(tmp_path)])
    err = one_line_error(capsys, code)
    assert err == f"error: invalid --rule {f'x={value}'!r}: the key {key} is given twice in " \
                  "one object", err
    assert not (tmp_path / "deals.csv").exists()
    assert arena.parse_rule_options(None, ["x={'a': 1, 'b': {'a': 2}}", "y=[{1, 1}]"]) == {
        "x": {"a": 1, "b": {"a": 2}}, "y": [{1}]}  # a key in two dicts, a set: no dict's twice
    deep = "-" * 100_000 + "1"  # past the parser's depth: a string, not its MemoryError
    assert arena.parse_rule_options(None, [f"x={deep}"]) == {"x": deep}


def test_arena_robot_file_name_too_long(capsys, tmp_path):
    """Issue #29 item 9: an onnx robot whose path the system refuses was a traceback."""
    code = run_main(arena.main, ["--deals", "1", "--robots", f"onnx:{tmp_path / LONG}.onnx",
                                 "--quiet", "--out", str(tmp_path)])
    err = one_line_error(capsys, code)
    assert "--robots: cannot read" in err and LONG in err and "File name too long" in err


# --- paths of the training and script CLIs -------------------------------------------------
def _training_cases(tmp_path):
    from training import demo, evaluate, export, train

    return [
        (demo.main, ["--out", f"{tmp_path}/{LONG}"], "cannot open"),
        (export.main, [f"{LONG}.pt"], "cannot read the checkpoint"),
        (export.main, ["models/missing.pt", "-o", f"{tmp_path}/{LONG}.onnx"], "cannot write"),
        (evaluate.main, [f"{LONG}.pt"], "cannot read the checkpoint"),
        (evaluate.main, [f"{tmp_path}/{LONG}.onnx"], "cannot read"),
        (train.main, ["--config", f"{LONG}.toml", "--out", str(tmp_path / "run")],
         "cannot read config"),
        (train.main, ["--out", f"{tmp_path}/{LONG}", "--resume"], "cannot read the checkpoint"),
    ]


def test_training_clis_name_a_path_the_system_refuses(capsys, tmp_path):
    """Issue #29 item 9: ``training.export`` / ``training.evaluate`` (and train --resume,
    demo --out) gave an OSError traceback or an ``[Errno …]`` line on a 300-character file name; now
    one line naming the path, exit status 2."""
    for main, argv, what in _training_cases(tmp_path):
        err = one_line_error(capsys, run_main(main, argv))
        assert what in err and LONG in err and "File name too long" in err, (argv, err)
        assert "[Errno" not in err, err


def _script_cases(tmp_path):
    from scripts import ablate_phases, nnpimc_inference, plot_matches, pool_matches

    return [
        (pool_matches.main, [LONG], "cannot read"),
        (pool_matches.main, [f"{tmp_path}/{LONG}"], "cannot read"),
        (plot_matches.main, [f"{tmp_path}/{LONG}", "-o", str(tmp_path / "x.png")],
         "cannot read"),
        (plot_matches.main, ["-o", f"{tmp_path}/{LONG}.png"], "cannot write"),
        (ablate_phases.main, [f"{tmp_path}/{LONG}.onnx", "--deals", "1"], "cannot read"),
        (nnpimc_inference.main, ["--model", f"{tmp_path}/{LONG}.onnx"], "cannot read"),
    ]


def test_script_clis_name_a_path_the_system_refuses(capsys, tmp_path):
    """Issue #29 item 9: ``scripts/pool_matches.py`` (and the other scripts reading or
    writing a path) gave a traceback on a 300-character file name."""
    for main, argv, what in _script_cases(tmp_path):
        err = one_line_error(capsys, run_main(main, argv))
        assert what in err and LONG in err and "File name too long" in err, (argv, err)


def test_the_research_clis_name_what_they_were_doing_with_a_path(capsys, tmp_path):
    """``mariash best-response``, ``ladder`` and ``dataset`` reported every OSError as
    'cannot write PATH', a failed read of a finished run's result too, and an error of a
    message of its own as 'cannot write the file: MESSAGE': the verb is what the code
    that failed was doing (mariash_env.cli.doing), the message alone for the latter."""
    from mariash_env.cli import doing
    from mariash_env.research import run_command
    from mariash_env.research.best_response import main as best_response
    from mariash_env.research.dataset import main as dataset
    from mariash_env.research.ladder import main as ladder
    from mariash_env.shipped import ShippedModelError

    run = tmp_path / LONG
    try:  # where is_file() says False for any OSError (newer Pythons than 3.11's)
        (run / "result.json").is_file()
        says = f"cannot write {run}"  # the run's folder cannot be made
    except OSError:  # looking for the finished result failed
        says = f"cannot read {run / 'result.json'}"
    err = one_line_error(capsys, run_main(best_response, [
        "--robot", "random", "--exploiter", "table", "--rules", "lizany", "--deals", "1",
        "--out", str(run), "--quiet"]))
    assert err == f"error: {says}: File name too long", err
    for main, argv in ((dataset, ["--deals", "1", "--out", str(run)]),
                       (ladder, ["--game", "lizany=random,table", "--deals", "1",
                                 "--matches", str(run), "--out", str(tmp_path / "o")])):
        err = one_line_error(capsys, run_main(main, [*argv, "--quiet"]))
        assert err == f"error: cannot write {run}: File name too long", err

    def body(error, what=None):
        def go():
            if what is None:
                raise error
            with doing(what):
                raise error
        return lambda _argv: run_command(go, "kept")

    for error, what, says in [
            (FileNotFoundError(2, "No such file or directory", "x.csv"), "read",
             "cannot read x.csv: No such file or directory"),
            (ShippedModelError("no shipped model 'x.onnx' in models"), None,
             "no shipped model 'x.onnx' in models"),
            (OSError(28, "No space left on device", "out.csv"), None,
             "cannot write out.csv: No space left on device")]:
        err = one_line_error(capsys, run_main(body(error, what), []))
        assert err == f"error: {says}", err
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    err = one_line_error(capsys, run_main(lambda _: run_command(
        lambda: ladder(["--from", str(a_file / "r.json.gz")]), "kept"), []))
    assert err == f"error: cannot read the ladder's record {a_file / 'r.json.gz'}: Not a " \
        "directory", err


NUMERIC = [
    ("bench_resample", ["--deals", "-1"], "--deals"),
    ("bench_resample", ["--states", "-4"], "--states"),
    ("bench_resample", ["--states", "0"], "--states"),
    ("bench_resample", ["--seed", "-2"], "--seed"),
    ("bench_apis", ["--seconds", "nan"], "--seconds"),
    ("bench_apis", ["--num-envs", "0"], "--num-envs"),
    ("bench_env", ["--repeats", "0"], "--repeats"),
    ("bench_solver", ["--n", "-1"], "--n"),
    ("bench_solver", ["--licit", "x"], "--licit"),
    ("ablate_phases", ["random", "--deals", "0"], "--deals"),
    ("ablate_phases", ["random", "--jobs", "-1"], "--jobs"),
    ("ablate_phases", ["random", "--jobs", "999", "--deals", "1"], "jobs=999"),
    ("label_regret", ["labels", "m.onnx", "--states", "-1"], "--states"),
    ("label_regret", ["labels", "m.onnx", "--skip", "-1"], "--skip"),
    ("anchors", ["--slice", "0"], "--slice"),
]


@pytest.mark.parametrize(("script", "argv", "name"), NUMERIC)
def test_numeric_script_options_are_checked_by_argparse(capsys, script, argv, name):
    """Issue #29 item 9: ``bench_resample.py --deals -1`` / ``--states -4`` gave a traceback
    (numpy's ``low >= high``, a ZeroDivisionError); every numeric option of the scripts is
    now checked when parsed, one line naming it, exit status 2."""
    import importlib

    main = importlib.import_module(f"scripts.{script}").main
    err = one_line_error(capsys, run_main(main, argv))
    assert name in err and "expected" in err, err


def test_bench_env_checks_its_json_path_before_the_benchmark(capsys, monkeypatch):
    """Issue #29 item 9: ``bench_env.py --json /proc/1/x`` failed only after the whole
    benchmark; the path is checked first."""
    from scripts import bench_env

    monkeypatch.setattr(bench_env.anchors, "interleaved", lambda *a, **k: pytest.fail(
        "the benchmark ran before the output path was checked"))
    err = one_line_error(capsys, run_main(bench_env.main, ["--json", "/proc/1/x"]))
    assert "--json: cannot write /proc/1/x" in err


def test_check_writable_keeps_an_existing_file_and_names_the_path(tmp_path):
    """Issue #29 item 9: the one writability check (shared by training and the scripts)
    leaves an existing file as it is and turns any OSError into an UnwritableError."""
    f = tmp_path / "a.json"
    f.write_text(json.dumps([1]))
    check_writable(f)
    assert f.read_text() == "[1]" and sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
    for bad in (tmp_path, tmp_path / "a.json" / "b", tmp_path / LONG, "/proc/1/x"):
        with pytest.raises(UnwritableError, match="cannot write"):
            check_writable(bad)
    from training.checkpoint import UnwritableError as TrainingUnwritable

    assert TrainingUnwritable is UnwritableError  # one class, one check


def test_no_warning_for_accepted_reset_options():
    """Issue #29 item 9: the accepted keys pass silently."""
    e = mariash_env.env(deals=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e.reset(seed=1, options={"deck": DECK, "dealer": 1, "cuts": []})
    assert e.unwrapped.game.first_dealer == 1
