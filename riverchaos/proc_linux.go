package riverchaos

import (
	"os/exec"
	"syscall"
)

// setPdeathsig kills the child if the orchestrator dies (a test timeout,
// a SIGKILL of our own): no child outlives its run.
func setPdeathsig(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
