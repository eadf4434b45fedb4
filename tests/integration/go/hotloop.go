// A Go workload whose CPU profile is known: enavGoHotLoop burns the CPU.
// Built by tests/integration/test_profiling.sh with the Debian Go toolchain.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

var sink float64

//go:noinline
func enavGoHotLoop(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x += float64(i) * 0.5
	}
	sink = x
}

func main() {
	seconds := 5.0
	if len(os.Args) > 1 {
		if v, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			seconds = v
		}
	}
	fmt.Printf("ready %d\n", os.Getpid())
	deadline := time.Now().Add(time.Duration(seconds * float64(time.Second)))
	for time.Now().Before(deadline) {
		enavGoHotLoop(5000000)
	}
}
