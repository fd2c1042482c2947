package asynqchaos

import (
	"os"
	"testing"

	"github.com/durasim/durasim/crash/workload/workloadtest"
	"github.com/durasim/durasim/internal/pgtest"
)

// childFlag, first on the command line, makes the test binary a child
// of a run (`durasim asynq-worker`): the end-to-end tests start children from
// the test binary itself.
const childFlag = "-asynqchaos.child"

func TestMain(m *testing.M) {
	os.Exit(workloadtest.Main(m, childFlag, "asynq-worker", &ChildConfig{}, pgtest.Main))
}
