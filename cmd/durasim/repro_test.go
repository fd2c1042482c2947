package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/sim"
)

// TestMain lets a test run this package's binary as the CLI itself
// (DURASIM_CLI=1): the interrupt tests send it signals.
func TestMain(m *testing.M) {
	if os.Getenv("DURASIM_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Every flag a Config setting has is defined by run, replay and shrink.
func TestEverySettingFlagIsDefined(t *testing.T) {
	for _, verb := range []string{"run", "replay", "shrink"} {
		f := newSimFlags(verb, io.Discard)
		for _, name := range sim.FlagNames() {
			if f.fs.Lookup(name) == nil {
				t.Errorf("durasim %s has no -%s, which sim.Config.Flags prints", verb, name)
			}
		}
	}
}

// perturbed is the default config with the setting at path changed.
func perturbed(t *testing.T, path string) (sim.Config, bool) {
	c := sim.DefaultConfig()
	v := reflect.ValueOf(&c).Elem()
	for _, name := range strings.Split(path, ".") {
		v = v.FieldByName(name)
	}
	switch {
	case path == "Plan":
		p, err := faults.Parse("crash after_lease nth=1 worker=*; poison doc=2")
		if err != nil {
			t.Fatal(err)
		}
		v.Set(reflect.ValueOf(p))
	case path == "Variant":
		v.SetString("no-fencing")
	case path == "Only":
		v.Set(reflect.ValueOf([]int32{2, 5}))
	case v.Kind() == reflect.Struct: // read as one setting (the breaker's spec)
		return c, repro.Change(v.Field(0))
	case repro.Change(v):
	default:
		return c, false // Backend: opening a store is the backend tests' to check
	}
	return c, true
}

// The flags a failure prints for a config, parsed by the CLI, give that
// config back: for every setting that has a flag, changed alone.
func TestPrintedFlagsParseBack(t *testing.T) {
	checked := 0
	for _, f := range sim.Settings() {
		if f.Flag == "" || f.Mode != "" {
			continue
		}
		cfg, ok := perturbed(t, f.Key)
		if !ok {
			continue
		}
		args := cfg.Flags()
		fl := newSimFlags("replay", io.Discard)
		if err := fl.parse(append([]string{"-seed", "1"}, args...)); err != nil {
			t.Errorf("%s: %q: %v", f.Key, args, err)
			continue
		}
		got, err := fl.config()
		if err != nil {
			t.Errorf("%s: %q: %v", f.Key, args, err)
			continue
		}
		if checked++; !reflect.DeepEqual(got, cfg) {
			t.Errorf("%s: flags %q give\n%+v\nwant\n%+v", f.Key, args, got, cfg)
		}
	}
	if checked < 20 {
		t.Errorf("only %d flags checked", checked)
	}
}

// failingSeed finds a seed of cfg that fails.
func failingSeed(t *testing.T, cfg sim.Config) uint64 {
	t.Helper()
	for seed := uint64(1); seed < 500; seed++ {
		if res, err := sim.Run(cfg, seed); err == nil && res.Failed() {
			return seed
		}
	}
	t.Fatal("no failing seed")
	return 0
}

// A repro file holds every setting: replay and run read it, flags change
// a setting of it, -seed its seed; a bad file is a one-line error naming
// its line.
func TestReproFile(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Variant, cfg.MaxFaults = "no-fencing", 2
	seed := failingSeed(t, cfg)
	file := filepath.Join(t.TempDir(), "f.repro")
	if err := writeReproFile(file, cfg, seed); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := cli("replay", "-repro", file); code != 1 || !strings.Contains(stderr, "violation: ") {
		t.Fatalf("replay -repro: status %d, stderr %q", code, stderr)
	}
	out, _, code := cli("run", "-repro", file)
	if code != 1 || !strings.Contains(out, "FAIL seed "+strconv.FormatUint(seed, 10)+" ") {
		t.Fatalf("run -repro: status %d\n%s", code, out)
	}
	// The shrunk run's replay reads the file and changes what differs.
	if !strings.Contains(out, "replay -repro "+file+" -workers ") {
		t.Errorf("the shrunk counterexample's command does not read the file:\n%s", out)
	}
	f := newSimFlags("run", io.Discard)
	if err := f.parse([]string{"-repro", file, "-workers", "7", "-seed", "3"}); err != nil {
		t.Fatal(err)
	}
	got, err := f.config()
	if err != nil {
		t.Fatal(err)
	}
	if rng, _ := f.seedRange(1); got.Workers != 7 || got.MaxFaults != 2 || got.Variant != "no-fencing" || rng.lo != 3 {
		t.Errorf("-repro with -workers 7 -seed 3: workers %d, max faults %d, variant %s, seed %d", got.Workers, got.MaxFaults, got.Variant, rng.lo)
	}
	bad := filepath.Join(t.TempDir(), "bad.repro")
	b, _ := os.ReadFile(file)
	if err := os.WriteFile(bad, bytes.Replace(b, []byte("MaxFaults 2"), []byte("MaxFaultz 2"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"replay", "-repro", bad}
	out, stderr, code := cli(args...)
	oneLineError(t, args, out, stderr, code)
	if !regexp.MustCompile(`bad\.repro:\d+: unknown setting MaxFaultz`).MatchString(stderr) {
		t.Errorf("a bad file: %q", stderr)
	}
}

// cliProcess starts this package's binary as the CLI.
func cliProcess(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "DURASIM_CLI=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out, &errb
}

// interrupted sends SIGINT to cmd after wait and returns its exit status.
func interrupted(t *testing.T, cmd *exec.Cmd, wait time.Duration) int {
	t.Helper()
	time.Sleep(wait)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the interrupted sweep did not end within 5 minutes")
	}
	return cmd.ProcessState.ExitCode()
}

// The must-show: an interrupted sweep (timeout -s INT 3 durasim run
// -seeds 1:1000000 -variant no-fencing -html-dir D) exits 130 with the
// summary of the seeds that ran, marked interrupted, naming its failing
// seeds and the commands that reproduce the first, and writes their
// pages in D.
func TestInterruptKeepsResults(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "D")
	cmd, out, errb := cliProcess(t, "run", "-seeds", "1:1000000", "-variant", "no-fencing", "-html-dir", dir)
	code := interrupted(t, cmd, 3*time.Second)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitInterrupted, out, errb)
	}
	text := out.String()
	m := regexp.MustCompile(`interrupted by SIGINT: (\d+) of 1000000 seeds ran`).FindStringSubmatch(text)
	failing := regexp.MustCompile(`(?m)^failing     (\d+)`).FindStringSubmatch(text)
	if m == nil || failing == nil || !strings.Contains(text, "\nFAIL seed "+failing[1]+" ") || !strings.Contains(text, "  reproduce:\n") ||
		!strings.Contains(text, "run -seed "+failing[1]+" -variant no-fencing") {
		t.Fatalf("no interrupted summary naming a failing seed and its reproduce line:\n%s", text)
	}
	page := filepath.Join(dir, "seed-"+failing[1]+".html")
	if _, err := os.Stat(page); err != nil || !strings.Contains(errb.String(), "wrote "+page) {
		t.Errorf("page %s: %v\n%s", page, err, errb)
	}
}

// With -json, an interrupted sweep's last line is its summary, marked.
func TestInterruptKeepsJSONSummary(t *testing.T) {
	cmd, out, errb := cliProcess(t, "run", "-seeds", "1:1000000", "-variant", "no-fencing", "-json")
	if code := interrupted(t, cmd, 2*time.Second); code != exitInterrupted {
		t.Fatalf("exit %d\n%s", code, errb)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var sum summaryLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Type != "summary" || sum.Interrupted != "SIGINT" ||
		sum.Planned != 1000000 || sum.Seeds == 0 || sum.Failed == 0 || sum.Shrunk == nil {
		t.Fatalf("last line %q (%v): want an interrupted summary with its failures", lines[len(lines)-1], err)
	}
}

// Every output path is checked before the first seed: one line, status
// 2, at once — a file where a directory is wanted, a file the process
// may not write (sysfs refuses a write open of a read-only file, even to
// root), a directory no file can be made in (procfs).
func TestOutputsCheckedBeforeTheRun(t *testing.T) {
	for _, args := range [][]string{
		{"report", "-out", "/etc/passwd"},
		{"report", "-out", "/proc/version/out"},
		{"run", "-seed", "1", "-variant", "no-fencing", "-html", "/sys/kernel/notes"},
		{"run", "-seed", "1", "-variant", "no-fencing", "-html", "/proc/durasim.html"},
		{"replay", "-seed", "1", "-html", "/sys/kernel/notes"},
		{"run", "-seeds", "1:1000", "-html-dir", "/proc/durasim"},
	} {
		start := time.Now()
		out, stderr, code := cli(args...)
		oneLineError(t, args, out, stderr, code)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%q: refused after %v", args, took)
		}
	}
}

// The CLI's small promises, one by one.
func TestCLIItems(t *testing.T) {
	for _, verb := range []string{"run", "replay"} {
		if _, help, _ := cli(verb, "-h"); !strings.Contains(help, "-target") || !strings.Contains(help, "-target river -h") {
			t.Errorf("%s -h does not mention -target:\n%s", verb, help)
		}
	}
	args := []string{"run", "-seed", "1", "-design", "tx-checked"}
	out, stderr, code := cli(args...)
	oneLineError(t, args, out, stderr, code)
	if !strings.Contains(stderr, "-target river") || !strings.Contains(stderr, "-variant") {
		t.Errorf("-design without -target: %q", stderr)
	}
	if _, help, _ := cli("run", "-h"); !strings.Contains(help, "1 to "+strconv.Itoa(sim.MaxTenants)) {
		t.Errorf("-tenants help does not say 1 to %d", sim.MaxTenants)
	}
	if _, _, code := cli("run", "-seed", "1", "-tenants", strconv.Itoa(sim.MaxTenants)); code != 0 {
		t.Errorf("-tenants %d: status %d, want 0", sim.MaxTenants, code)
	}
	if _, _, code := cli("run", "-seed", "1", "-tenants", strconv.Itoa(sim.MaxTenants+1)); code != 2 {
		t.Errorf("-tenants %d: status %d, want 2", sim.MaxTenants+1, code)
	}
	out, _, code = cli("run", "-seeds", "1:2", "-check-determinism", "-json")
	var l determinismLine
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 || json.Unmarshal([]byte(lines[1]), &l) != nil || !l.Deterministic || l.Seed != 2 {
		t.Errorf("-check-determinism -json: status %d\n%s", code, out)
	}
	if _, stderr, _ := cli("run"); !strings.Contains(stderr, "no -seed or -seeds: running seed 1") {
		t.Errorf("run without a seed does not say which it ran: %q", stderr)
	}
	if _, stderr, _ := cli("run", "-seed", "1"); stderr != "" {
		t.Errorf("run -seed 1 says %q", stderr)
	}
}

// A PostgreSQL connection error (sslmode=prefer: pgx tries TLS, then
// plain text, and both fail alike) says its dial error once.
func TestConnectionErrorOnce(t *testing.T) {
	for _, extra := range [][]string{nil, {"-scratch-db"}} {
		args := append([]string{"run", "-seed", "1", "-backend", "postgres", "-db", "postgres://u@127.0.0.1:1/x?connect_timeout=5"}, extra...)
		out, stderr, code := cli(args...)
		oneLineError(t, args, out, stderr, code)
		if n := strings.Count(stderr, "dial tcp 127.0.0.1:1"); n != 1 {
			t.Errorf("%q: the dial error %d times: %s", args, n, stderr)
		}
	}
}
