// Three Google Benchmark benchmarks of fixed work. BM_beta does 3x its work when a file named
// "slow" is in the working directory (the planted change of harness_test.sh), or the factor
// the file holds ("1.15": tests/bench/harness/bars.sh).
#include <benchmark/benchmark.h>

#include <stdio.h>

static unsigned long spin(unsigned long n)
{
	unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++) {
		x += i * i;
		benchmark::DoNotOptimize(x);
	}
	return x;
}

static void BM_alpha(benchmark::State &state)
{
	for (auto _ : state)
		benchmark::DoNotOptimize(spin(20000));
}
BENCHMARK(BM_alpha);

static unsigned long planted(unsigned long n)
{
	FILE *f = fopen("slow", "r");
	double factor = 3.0;

	if (!f)
		return n;
	if (fscanf(f, "%lf", &factor) != 1)
		factor = 3.0;
	fclose(f);
	return (unsigned long)(n * factor);
}

static void BM_beta(benchmark::State &state)
{
	unsigned long n = planted(20000);

	for (auto _ : state)
		benchmark::DoNotOptimize(spin(n));
}
BENCHMARK(BM_beta);

static void BM_gamma(benchmark::State &state)
{
	for (auto _ : state)
		benchmark::DoNotOptimize(spin(40000));
}
BENCHMARK(BM_gamma);

BENCHMARK_MAIN();
