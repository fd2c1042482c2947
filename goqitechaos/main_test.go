package goqitechaos

import (
	"os"
	"testing"

	"github.com/durasim/durasim/crash/workload/workloadtest"
)

// childFlag, first on the command line, makes the test binary a child
// of a run (`durasim goqite-worker`): the end-to-end tests start children from
// the test binary itself.
const childFlag = "-goqitechaos.child"

func TestMain(m *testing.M) {
	os.Exit(workloadtest.Main(m, childFlag, "goqite-worker", &ChildConfig{}, (*testing.M).Run))
}
