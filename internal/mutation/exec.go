package mutation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// buildOverlay builds the killer into dir with files (original path →
// new source; a path that does not exist is added to its package) swapped
// in by an overlay: the repository is never copied or touched.
func (s *session) buildOverlay(dir string, files map[string][]byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	for i, orig := range slices.Sorted(maps.Keys(files)) {
		// Numbered: two packages' files may share a name.
		repl := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(orig)))
		if err := os.WriteFile(repl, files[orig], 0o644); err != nil {
			return "", err
		}
		replace[orig] = repl
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "killer")
	return bin, goRunContext(s.ctx, s.env, buildArgs(bin, ov, s.o.Killer[0])...)
}

// buildArgs is the go command that builds a killer: no debug information
// (a fifth less work per build, and a killer is never debugged), no VCS
// stamp (it runs git), and the overlay if any.
func buildArgs(bin, overlay, pkg string) []string {
	args := []string{"build", "-buildvcs=false", "-gcflags=all=-dwarf=false", "-ldflags=-s -w", "-o", bin}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	return append(args, pkg)
}

// verdict is how one run of a killer ended.
type verdict struct {
	status  Status
	detail  string // the line that says why
	stdout  string
	first   string // the first run's stdout (of several runs split at ";": the others may not be deterministic)
	elapsed time.Duration
	cpu     time.Duration // user and system time the killer used
}

// starved reports whether a timed-out killer was kept off the CPU rather
// than busy: it used less than half its wall time (a machine loaded by
// other work), where a hang spins on the CPU throughout.
func (v verdict) starved() bool { return v.status == TimedOut && v.cpu < v.elapsed/2 }

// execKiller runs the killer's runs in order (its arguments split at each
// lone ";", as Cover does) until one does not pass, and judges them: the
// first that fails is the verdict, times add up. Each run has the whole
// timeout; one timed out while other work kept it waiting runs once more.
func (s *session) execKiller(bin string, env []string, timeout time.Duration) verdict {
	var all verdict
	for i, args := range SplitRuns(s.o.Killer[1:]) {
		v := execKiller(s.ctx, bin, args, env, timeout)
		if v.starved() {
			v = execKiller(s.ctx, bin, args, env, timeout)
		}
		v.elapsed, v.cpu, v.first = v.elapsed+all.elapsed, v.cpu+all.cpu, all.first
		if i == 0 {
			v.first = v.stdout
		}
		if all = v; v.status != Survived {
			break
		}
	}
	return all
}

// execKiller runs the killer with extra environment and judges it: exit 0
// survives, exit 1 is a violation, any other end a crash; past timeout
// (0: none) it is stopped and timed out.
func execKiller(ctx context.Context, bin string, args []string, env []string, timeout time.Duration) verdict {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = time.Second
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	v := verdict{stdout: stdout.String(), elapsed: time.Since(start)}
	if cmd.ProcessState != nil {
		v.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		v.status, v.detail = TimedOut, fmt.Sprintf("no verdict after %s", timeout.Round(time.Millisecond))
	case err == nil:
		v.status = Survived
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		v.status, v.detail = Killed, verdictLine(v.stdout, "violation", "catalogue:")
	case errors.As(err, &exit):
		v.status, v.detail = Crashed, verdictLine(stderr.String(), "panic:", "fatal error:")
	default:
		v.status, v.detail = Crashed, err.Error()
	}
	return v
}

// verdictLine is the first line of out that starts with one of prefixes,
// else its first line.
func verdictLine(out string, prefixes ...string) string {
	for _, line := range strings.Split(out, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				return strings.TrimSpace(line)
			}
		}
	}
	return firstLine(out)
}
