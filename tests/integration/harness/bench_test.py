# Three pytest-benchmark benchmarks of fixed work; test_beta does 3x its work when a file named
# "slow" is in the working directory (harness_test.sh's planted change), or the factor the file
# holds ("1.15": tests/bench/harness/bars.sh).
import os


def planted(n):
    if not os.path.exists("slow"):
        return n
    with open("slow") as f:
        text = f.read().strip()
    return int(n * (float(text) if text else 3.0))


def spin(n):
    x = 0
    for i in range(n):
        x += i * i
    return x


def test_alpha(benchmark):
    benchmark(spin, 2000)


def test_beta(benchmark):
    benchmark(spin, planted(2000))


def test_gamma(benchmark):
    benchmark(spin, 4000)
