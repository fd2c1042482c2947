package targetsim_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/internal/repro"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// TestEverySettingReproduces walks every exported field of
// targetsim.Config, changes it alone, and checks that the flags a
// reproduce command prints bring it back through SetFlag: no setting of
// a target run can be dropped from its command line.
func TestEverySettingReproduces(t *testing.T) {
	const mode = "KeepTrace" // the command running a reproduction sets it
	for _, path := range repro.Leaves(reflect.TypeFor[targetsim.Config](), reflect.TypeFor[faults.Plan]()) {
		if path == mode {
			continue
		}
		c := targetsim.DefaultConfig()
		v := reflect.ValueOf(&c).Elem().FieldByName(path)
		switch {
		case v.Type() == reflect.TypeFor[faults.Plan]():
			p, err := targetsim.Vocabulary("river").Parse("crash after_fetch nth=1 worker=w1; slow doc=3 attempt=1 for=14s")
			if err != nil {
				t.Fatal(err)
			}
			v.Set(reflect.ValueOf(p))
		case repro.Change(v):
		default:
			t.Fatalf("%s: a %v, which this test cannot change: teach it (and the schema in command.go) its kind", path, v.Type())
		}
		if un := c.Unflagged(); len(un) > 0 {
			t.Errorf("%s: no flag sets %v", path, un)
			continue
		}
		args := c.Flags()
		if len(args) == 0 {
			t.Errorf("%s: changed, yet no flag printed", path)
		}
		back := targetsim.DefaultConfig()
		for _, p := range repro.Pairs(args) {
			if err := targetsim.SetFlag(&back, p[0], p[1]); err != nil {
				t.Errorf("%s: flags %q: %v", path, args, err)
			}
		}
		if !reflect.DeepEqual(back, c) {
			t.Errorf("%s: flags %q give back\n%+v\nwant\n%+v", path, args, back, c)
		}
	}
	var modes []string
	for _, f := range targetsim.Settings() {
		if f.Mode != "" {
			modes = append(modes, f.Key)
		}
	}
	if !slices.Equal(modes, []string{mode}) {
		t.Errorf("settings a reproduction does not carry: %q, want %q", modes, mode)
	}
}

// renamed is a queue of a system of the user's own: River under another
// name, which durasim's CLI does not open.
type renamed struct{ target.Queue }

func (renamed) Name() string { return "mine" }

// A reproduce command names the system of the queue that ran, with the
// system's flags for its settings; a queue the CLI does not open gets
// none, and says why.
func TestCommandNamesTheQueueThatRan(t *testing.T) {
	cfg := targetsim.DefaultConfig()
	cfg.Design, cfg.Swarm, cfg.Only = targetsim.EffectOutsideTx, false, []int{1, 4}
	q, err := rivertarget.Open(t.Context(), rivertarget.SQLite, "", rivertarget.CLIConfig(20*target.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	want := "go run ./cmd/durasim replay -target river -rescue-after 20s -seed 7 -design effect-outside-tx -swarm=false -only 1,4"
	if got, err := (&targetsim.Reproducer{}).Line("replay", q, cfg, 7); got != want || err != nil {
		t.Errorf("Line:\n got %s (%v)\nwant %s", got, err, want)
	}
	if got, err := (&targetsim.Reproducer{}).Line("replay", renamed{q}, cfg, 7); got != "" || err == nil {
		t.Errorf("a queue of the user's own: %q, want no durasim command", got)
	}
	rp := &targetsim.Reproducer{Test: "go test ./x -run '^TestX$' -sim.seed=7"}
	lines := strings.Join(rp.Lines(renamed{q}, cfg, 7, nil), "\n")
	if strings.Contains(lines, "durasim replay") || !strings.Contains(lines, "go test ./x") || !strings.Contains(lines, "target mine: durasim's CLI cannot open it") {
		t.Errorf("reproduce lines of a queue of the user's own:\n%s", lines)
	}
	odd := rivertarget.DefaultConfig()
	odd.MaxAttemptedBy = 3
	q2, err := rivertarget.Open(t.Context(), rivertarget.SQLite, "", odd)
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	if _, err := rp.Line("replay", q2, cfg, 7); err == nil || !strings.Contains(err.Error(), "Config.MaxAttemptedBy") {
		t.Errorf("a River setting no flag gives: %v, want an error naming it", err)
	}
}
