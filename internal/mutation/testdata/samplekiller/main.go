// Command samplekiller checks package sample: exit 1 on a wrong answer.
package main

import (
	"fmt"
	"os"

	"github.com/durasim/durasim/internal/mutation/testdata/sample"
)

func main() {
	ok := sample.Clamp(5, 0, 10) == 5 && sample.Clamp(-1, 0, 10) == 0 && sample.Clamp(11, 0, 10) == 10 &&
		sample.Back([]int{7, 8}, 0) == 8 && sample.Spin(3) == 3 && sample.Twice(4) == 8
	if !ok {
		fmt.Println("violation: wrong answer")
		os.Exit(1)
	}
}
