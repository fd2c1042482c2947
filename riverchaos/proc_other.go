//go:build !linux

package riverchaos

import "os/exec"

// setPdeathsig: only Linux can tie a child's life to its parent's.
func setPdeathsig(*exec.Cmd) {}
