"""Throughput of the robot service: ``mariash serve-robot SPEC --workers N`` against the
same service in one process, both on loopback, answering the same seat records.

    python scripts/bench_service.py [--robot "pimc(worlds=4, time_limit=None)"]
                                    [--workers 2] [--clients 4] [--rounds 3] [--slice 5]

Each round starts the one-process service and the N-process one in turn (each a real
``mariash serve-robot`` on a free port, timed only once ``/info`` answers and a warm-up
request per client has been answered), and ``--clients`` threads post the records in turn
over fresh connections (the same ``urllib`` harness for both) for ``--slice`` seconds.
Prints the answered requests per second of each, their medians over the rounds and the
median of the per-round ratios.  A service answers one request at a time per process, so
on a machine with N free cores a searching robot should come near N times the one
process; the answers are checked to be the same.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the checkout this script is in, not an installed copy
    sys.path.insert(0, str(ROOT))

from mariash_env import jsonio  # noqa: E402


def records(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` volený seat records of the seat to move in the first three tricks of random
    deals (where a search has most to do)."""
    import numpy as np

    from mariash_env import Game, make_rules
    from mariash_env.seat_record import seat_record_of

    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    while len(out) < n:
        g = Game(make_rules())
        g.new_partie(seed=int(rng.integers(1 << 30)))
        while not g.deal_over and g.phase_name != "play":
            g.step(int(rng.choice(g.legal_actions())))
        for _ in range(int(rng.integers(0, 9))):  # up to three tricks into the play
            if not g.deal_over:
                g.step(int(rng.choice(g.legal_actions())))
        if not g.deal_over:
            out.append({"record": seat_record_of(g, g.to_move)})
    return out



def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url + "/act", method="POST", data=jsonio.dumps(body).encode())
    return jsonio.load(urllib.request.urlopen(req, timeout=120))


def serve(robot: str, workers: int) -> tuple[subprocess.Popen, str]:
    """A ``mariash serve-robot`` subprocess answering on a free port, once it answers."""
    from mariash_env.play.listen import free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mariash_env.play.cli", "serve-robot",
                             robot, "--port", str(port), "--workers", str(workers)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    url = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 300
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the service did not start: {proc.stdout.read()}")
        try:
            urllib.request.urlopen(url + "/info", timeout=1)
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the service did not answer /info within 300 s")


def rate(url: str, bodies: list[dict[str, Any]], clients: int, seconds: float,
         answers: dict[int, int]) -> float:
    """Answered requests per second of ``clients`` threads posting ``bodies`` in turn for
    ``seconds``; each answer is checked against ``answers`` (body index -> action), which
    the first answer of a body fills."""
    for i in range(clients):  # a warm-up request per client (every worker's first search)
        answers.setdefault(i % len(bodies), _post(url, bodies[i % len(bodies)])["action"])
    done = [0] * clients
    stop = time.perf_counter() + seconds
    errors: list[str] = []

    def client(k: int) -> None:
        i = k
        while time.perf_counter() < stop:
            j = i % len(bodies)
            a = _post(url, bodies[j])["action"]
            if answers.setdefault(j, a) != a:
                errors.append(f"body {j}: action {a}, before {answers[j]}")
            done[k] += 1
            i += clients
    t0 = time.perf_counter()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError("the workers answered differently: " + "; ".join(errors[:3]))
    return sum(done) / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    from mariash_env.cli import ArgumentParser  # one error: line, exit 2

    p = ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--robot", default="pimc(worlds=4, time_limit=None)",
                   help="robot spec; a searching robot answers records")
    p.add_argument("--workers", type=int, default=2,
                   help="processes of the service compared with one (default 2, at least 2)")
    p.add_argument("--clients", type=int, default=4, help="threads posting at once")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds, each timing both services in turn (default 3)")
    p.add_argument("--slice", type=float, default=5.0, help="seconds each contender a round")
    p.add_argument("--records", type=int, default=3000,
                   help="distinct records, posted in turn (a repeated one may hit a cache)")
    p.add_argument("--seed", type=int, default=0, help="seed of the records' deals (default 0)")
    a = p.parse_args(argv)
    if a.workers < 2 or a.clients < 1 or a.rounds < 1 or a.slice <= 0:
        p.error("expected --workers >= 2, --clients >= 1, --rounds >= 1, --slice > 0")
    bodies = records(a.records, a.seed)
    answers: dict[int, int] = {}
    rates: dict[int, list[float]] = {1: [], a.workers: []}
    for r in range(a.rounds):
        order = (1, a.workers) if r % 2 == 0 else (a.workers, 1)  # interleaved
        for w in order:
            proc, url = serve(a.robot, w)
            try:
                rates[w].append(rate(url, bodies, a.clients, a.slice, answers))
            finally:
                proc.terminate()
                proc.wait(timeout=60)
            print(f"round {r + 1}: {w} process(es) {rates[w][-1]:.1f} requests/s", flush=True)
    ratios = [n / one for n, one in zip(rates[a.workers], rates[1])]
    print(f"robot {a.robot}, {a.clients} clients, {len(bodies)} records, "
          f"{a.rounds} rounds of {a.slice:g} s")
    print(f"1 process:   {statistics.median(rates[1]):.1f} requests/s (median)")
    print(f"{a.workers} processes: {statistics.median(rates[a.workers]):.1f} requests/s "
          f"(median), ratio {statistics.median(ratios):.2f} (median of the rounds')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
