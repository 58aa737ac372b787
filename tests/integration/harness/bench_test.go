// Three Go benchmarks of fixed work; BenchmarkBeta does 3x its work when a file named "slow"
// is in the package's directory (harness_test.sh's planted change), or the factor the file
// holds ("1.15": tests/bench/harness/bars.sh).
package harness

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func planted(n int) int {
	b, err := os.ReadFile("slow")
	if err != nil {
		return n
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		f = 3
	}
	return int(float64(n) * f)
}

var sink uint64

func spin(n int) {
	var x uint64
	for i := 0; i < n; i++ {
		x += uint64(i * i)
	}
	sink = x
}

func BenchmarkAlpha(b *testing.B) {
	for i := 0; i < b.N; i++ {
		spin(20000)
	}
}

func BenchmarkBeta(b *testing.B) {
	n := planted(20000)
	for i := 0; i < b.N; i++ {
		spin(n)
	}
}

func BenchmarkGamma(b *testing.B) {
	for i := 0; i < b.N; i++ {
		spin(40000)
	}
}
