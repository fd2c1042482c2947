package chaos

import (
	"os/exec"
	"syscall"
)

// setPdeathsig kills the child if the orchestrator dies (a test timeout, a
// SIGKILL of our own): no worker outlives its run.
func setPdeathsig(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
