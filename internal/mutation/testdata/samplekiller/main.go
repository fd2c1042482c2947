// Command samplekiller checks package sample: exit 1 on a wrong answer.
// With arguments it checks only the parts they name (clamp, rest), so
// that a test can split it into runs; clock only prints the time, as a
// real-time run's output differs from run to run.
package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/durasim/durasim/internal/mutation/testdata/sample"
)

func main() {
	part := func(name string) bool { return len(os.Args) == 1 || slices.Contains(os.Args[1:], name) }
	ok := true
	if part("clamp") {
		ok = sample.Clamp(5, 0, 10) == 5 && sample.Clamp(-1, 0, 10) == 0 && sample.Clamp(11, 0, 10) == 10
	}
	if part("rest") {
		ok = ok && sample.Back([]int{7, 8}, 0) == 8 && sample.Spin(3) == 3 && sample.Twice(4) == 8
	}
	if len(os.Args) > 1 && slices.Contains(os.Args[1:], "clock") {
		fmt.Println(time.Now().UnixNano())
	}
	if !ok {
		fmt.Println("violation: wrong answer")
		os.Exit(1)
	}
}
