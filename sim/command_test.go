package sim_test

import (
	"bytes"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// cliStore is a backend the CLI opens by name; ownStore one it cannot.
type cliStore struct{ ownStore }

func (*cliStore) OpenedByName() {}
func (*cliStore) Name() string  { return "sqlite" }

type ownStore struct{}

func (*ownStore) Name() string                      { return "mine" }
func (*ownStore) Begin(uint64, *model.System) error { return nil }
func (*ownStore) Observe(*model.Event) error        { return nil }
func (*ownStore) End(*model.System) error           { return nil }

// perturb changes the field at path in c to another value, and reports
// whether it knows how.
func perturb(t *testing.T, c *sim.Config, path string) {
	t.Helper()
	v := reflect.ValueOf(c).Elem()
	for _, name := range strings.Split(path, ".") {
		v = v.FieldByName(name)
	}
	switch {
	case v.Type() == reflect.TypeFor[faults.Plan]():
		p, err := faults.Parse("crash after_lease nth=1 worker=*; poison doc=2")
		if err != nil {
			t.Fatal(err)
		}
		v.Set(reflect.ValueOf(p))
	case v.Type() == reflect.TypeFor[sim.Backend]():
		v.Set(reflect.ValueOf(sim.Backend(&cliStore{})))
	case repro.Change(v):
	default:
		t.Fatalf("%s: a %v, which this test cannot change: teach perturb (and the schema in command.go) its kind", path, v.Type())
	}
}

// modes are the settings a reproduction does not carry: the command that
// runs it sets them. A new one is a decision, made here.
var modes = []string{"KeepTrace", "StopOnViolation"}

// TestEverySettingReproduces walks every exported field of sim.Config
// (nested structs included), changes it alone, and checks that what a
// failure prints brings it back: its flags where every setting changed
// has one, parsed back through SetFlag, and the repro file, always. A
// field with neither — a new field of a type with no text form, a key
// the file drops, a flag that sets another field — fails here.
func TestEverySettingReproduces(t *testing.T) {
	flagged := 0
	for _, path := range repro.Leaves(reflect.TypeFor[sim.Config](), reflect.TypeFor[faults.Plan]()) {
		if slices.Contains(modes, path) {
			continue
		}
		c := sim.DefaultConfig()
		perturb(t, &c, path)
		if args, err := sim.FlagsFrom(c, sim.DefaultConfig()); err == nil {
			flagged++
			if len(args) == 0 {
				t.Errorf("%s: changed, yet no flag printed and no setting reported missing", path)
			}
			back := sim.DefaultConfig()
			for _, p := range repro.Pairs(args) {
				name, val := p[0], p[1]
				if name == "backend" {
					back.Backend = c.Backend // opened by the CLI from its name
					continue
				}
				if err := sim.SetFlag(&back, name, val); err != nil {
					t.Errorf("%s: flags %q: %v", path, args, err)
				}
			}
			if !reflect.DeepEqual(back, c) {
				t.Errorf("%s: flags %q give back\n%+v\nwant\n%+v", path, args, back, c)
			}
		} else if un := c.Unflagged(); len(un) != 1 || path != un[0] && !strings.HasPrefix(path, un[0]+".") {
			t.Errorf("%s: no flags (%v), but Unflagged says %q", path, err, un)
		}
		var file bytes.Buffer
		if err := sim.WriteRepro(&file, c, 42, "test"); err != nil {
			t.Errorf("%s: no repro file: %v", path, err)
			continue
		}
		back, seed, backend, err := sim.ReadRepro(&file, "test.repro")
		if err != nil {
			t.Errorf("%s: reading its repro file back: %v\n%s", path, err, file.String())
			continue
		}
		if backend != sim.NoBackend {
			back.Backend = c.Backend
		}
		if seed != 42 || !reflect.DeepEqual(back, c) {
			t.Errorf("%s: the repro file gives back seed %d and\n%+v\nwant\n%+v", path, seed, back, c)
		}
	}
	if flagged < 20 {
		t.Errorf("only %d settings reproduced by flags", flagged)
	}
	var got []string
	for _, f := range sim.Settings() {
		if f.Mode != "" {
			got = append(got, f.Key)
		}
	}
	if !slices.Equal(got, modes) {
		t.Errorf("settings a reproduction does not carry: %q, want %q", got, modes)
	}
}

// A backend of the user's own has no durasim command and no repro file:
// the CLI cannot open it.
func TestOwnBackendIsNotNamed(t *testing.T) {
	c := sim.DefaultConfig()
	c.Backend = &ownStore{}
	if cmd := sim.Command("run", c, 1); cmd != "" {
		t.Errorf("Command = %q, want none", cmd)
	}
	if err := sim.WriteRepro(&bytes.Buffer{}, c, 1, ""); err == nil {
		t.Error("a repro file was written for a backend the CLI cannot open")
	}
	rp := &sim.Reproducer{Test: "go test ./x -run '^TestX$' -sim.seed=1"}
	lines := strings.Join(rp.Lines(c, 1, nil), "\n")
	if strings.Contains(lines, "durasim run") || !strings.Contains(lines, "go test ./x") || !strings.Contains(lines, "your own type") {
		t.Errorf("reproduce lines:\n%s", lines)
	}
	c.Backend = &cliStore{}
	if cmd := sim.Command("run", c, 1); cmd != "go run ./cmd/durasim run -seed 1 -backend sqlite" {
		t.Errorf("Command = %q", cmd)
	}
}

// A setting with no flag is reproduced by a repro file the Reproducer
// writes, and the shrunk run by that file and flags.
func TestUnflaggedSettingWritesAReproFile(t *testing.T) {
	c := sim.DefaultConfig()
	c.MaxFaults = 2
	if cmd := sim.Command("run", c, 1); cmd != "" {
		t.Errorf("Command = %q, want none: MaxFaults has no flag", cmd)
	}
	files := map[string]string{}
	rp := &sim.Reproducer{CLI: "durasim", Save: func(name string, cfg sim.Config, seed uint64) (string, error) {
		var b bytes.Buffer
		err := sim.WriteRepro(&b, cfg, seed, "")
		files[name+".repro"] = b.String()
		return name + ".repro", err
	}}
	shrunk := c
	shrunk.Swarm, shrunk.Docs, shrunk.Plan = false, 1, faults.Plan{}
	got := rp.Lines(c, 9, &sim.Shrunk{Seed: 9, Config: shrunk})
	want := []string{"durasim run -repro seed-9.repro", "durasim replay -repro seed-9.repro -docs 1 -swarm=false"}
	if !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	if !strings.Contains(files["seed-9.repro"], "\nMaxFaults 2\n") || !strings.Contains(files["seed-9.repro"], "\nseed 9\n") {
		t.Errorf("repro file:\n%s", files["seed-9.repro"])
	}
}

// endStore disagrees with every final state: a divergence that names no
// event.
type endStore struct{ ownStore }

func (*endStore) End(*model.System) error { return errors.New("the store holds nothing") }

// A failure tells one story: the shrunk run's own violation is printed
// with its event numbers, those events are marked in the counterexample
// under it, and a backend divergence that names no event still shows the
// end of the run it happened in.
func TestFailureTellsOneStory(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func() sim.Config
	}{
		{"no-fencing", func() sim.Config { c := sim.DefaultConfig(); c.Variant = "no-fencing"; return c }},
		{"divergence at the end", func() sim.Config { c := sim.DefaultConfig(); c.Backend = &endStore{}; return c }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg()
			var res *sim.Result
			for seed := uint64(1); res == nil && seed < 200; seed++ {
				if r, err := sim.Run(cfg, seed); err == nil && r.Failed() {
					res = r
				}
			}
			if res == nil {
				t.Fatal("no failing seed")
			}
			sh, err := sim.Shrink(cfg, res.Seed, res, 0)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			sim.WriteFailure(&b, cfg, res, sh, nil)
			out := b.String()
			shrunk := regexp.MustCompile(`(?m)^  shrunk violation: ` + regexp.QuoteMeta(sh.Invariant) + `: .*$`).FindString(out)
			_, story, _ := strings.Cut(out, "  counterexample (")
			story, _, _ = strings.Cut(story, "  reproduce:")
			events := strings.Count(story, "\n    ") // each event line
			if shrunk == "" || events == 0 || !strings.Contains(story, "renumbered by the shrink") {
				t.Fatalf("no shrunk violation or an empty counterexample:\n%s", out)
			}
			for _, m := range regexp.MustCompile(`#(\d+)`).FindAllStringSubmatch(shrunk, -1) {
				if !regexp.MustCompile(`(?m)^    > t=\S+ #` + m[1] + ` `).MatchString(story) {
					t.Errorf("event #%s of %q is not marked in the counterexample:\n%s", m[1], shrunk, story)
				}
			}
		})
	}
}
