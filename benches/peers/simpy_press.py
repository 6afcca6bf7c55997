"""The trivial press model on SimPy (bench_sim::press_model documents the
model): one process plays the games one after another, a timeout per think
time. Prints the same tally as the Rust implementations, and the median
events/s of three timed runs.

python3 simpy_press.py GAMES
python3 simpy_press.py GAMES --once   one untimed run (for callgrind)
"""

import statistics
import sys
import time

import simpy

BASE_US = 180_000_000
THINK_MIN_US = 300_000
THINK_SPAN_US = 2_200_001
MASK = (1 << 64) - 1
RUNS = 3


class SplitMix64:
    """The same generator as bench_sim::press_model::SplitMix64."""

    def __init__(self, seed):
        self.state = seed

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def think_us(self):
        return THINK_MIN_US + self.next_u64() % THINK_SPAN_US


def games_process(env, games, tally):
    draws = SplitMix64(1)
    for _ in range(games):
        remaining_us = [BASE_US, BASE_US]
        side = 0
        while True:
            think_us = draws.think_us()
            if think_us < remaining_us[side]:
                yield env.timeout(think_us)
                remaining_us[side] -= think_us
                tally["events"] += 1
                side = 1 - side
            else:
                yield env.timeout(remaining_us[side])
                tally["events"] += 1
                tally["games"] += 1
                break


def run(games):
    env = simpy.Environment()
    tally = {"games": 0, "events": 0}
    env.process(games_process(env, games, tally))
    env.run()
    return tally["games"], tally["events"], env.now


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    label = f"{'SimPy ' + simpy.__version__:<28}"
    if "--once" in sys.argv[2:]:
        played, events, end_us = run(games)
        print(f"{label} {played} games, {events} events, last at {end_us} us: once")
        return
    rates = []
    for _ in range(RUNS):
        started = time.perf_counter()
        played, events, end_us = run(games)
        rates.append(events / (time.perf_counter() - started))
    print(
        f"{label} {played} games, {events} events, last at {end_us} us: "
        f"{statistics.median(rates) / 1e6:.3f} M events/s (median of {RUNS})"
    )


if __name__ == "__main__":
    main()
