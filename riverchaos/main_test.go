package riverchaos

import (
	"os"
	"testing"

	"github.com/durasim/durasim/crash/workload/workloadtest"
	"github.com/durasim/durasim/internal/pgtest"
)

// childFlag, first on the command line, makes the test binary a child
// of a run (`durasim river-worker`): the end-to-end tests start children from
// the test binary itself.
const childFlag = "-riverchaos.child"

func TestMain(m *testing.M) {
	os.Exit(workloadtest.Main(m, childFlag, "river-worker", &ChildConfig{}, pgtest.Main))
}
