package goqitechaos

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
)

// childFlag, first on the command line, makes the test binary a child
// of a run (testChild): the end-to-end tests start children from the
// test binary itself.
const childFlag = "-goqitechaos.child"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == childFlag {
		os.Exit(testChild(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// testChild is `durasim goqite-worker`'s body: the child's flags, then
// RunChild.
func testChild(args []string) int {
	var c ChildConfig
	fs := flag.NewFlagSet("goqite-worker", flag.ContinueOnError)
	c.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := RunChild(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "goqite-worker:", err)
		return 1
	}
	return 0
}
