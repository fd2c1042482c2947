package rivercover

import (
	"bytes"
	"strings"
	"testing"

	"github.com/durasim/durasim/internal/mutation"
)

func TestModes(t *testing.T) {
	if _, err := Modes(0, ""); err == nil {
		t.Error("zero seeds accepted")
	}
	m, err := Modes(8, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m[0].Args, " "); got != "run -target river -seeds 1:8 ; run -target river -design outbox -seeds 1:2" {
		t.Errorf("deterministic mode runs %q", got)
	}
	if got := strings.Join(m[1].Args, " "); m[1].Name != "inprocess" || got != "chaos -target river -inprocess -seeds 1:2 ; chaos -target river -inprocess -design effect-outside-tx -seeds 4:4 -reruns 1" {
		t.Errorf("in-process mode runs %q", got)
	}
	if m[2].Skip == "" || m[2].Args != nil {
		t.Errorf("chaos without PostgreSQL: %+v, want skipped", m[2])
	}
	if m, _ := Modes(8, "postgres://x"); m[2].Skip != "" || !strings.Contains(strings.Join(m[2].Args, " "), "-db postgres://x") {
		t.Errorf("chaos with PostgreSQL: %+v", m[2])
	}
	if m[3].Name != "races" || m[3].Skip == "" || m[3].Args != nil {
		t.Errorf("races without PostgreSQL: %+v, want skipped", m[3])
	}
	m, _ = Modes(800, "postgres://x")
	if got := strings.Join(m[3].Args, " "); m[3].Skip != "" || got != "run -target river -backend postgres -db postgres://x -scratch-db -races -seeds 1:8" {
		t.Errorf("races with PostgreSQL runs %q", got)
	}
}

// Write prints each package's reached statements per mode, "-" for a
// skipped mode, and every part durasim re-enacts.
func TestWrite(t *testing.T) {
	prof, err := mutation.ParseProfile(strings.NewReader("mode: set\n" +
		"github.com/riverqueue/river/a.go:1.1,2.1 3 1\n" +
		"github.com/riverqueue/river/a.go:3.1,4.1 1 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	Write(&b, []string{riverPrefix}, []Result{{Mode: Mode{Name: "deterministic", Args: []string{"run"}}, Run: &mutation.CoverRun{Profile: prof}},
		{Mode: Mode{Name: "chaos", Skip: "no PostgreSQL"}}})
	out := b.String()
	for _, want := range []string{"river ", "75.0%     3/4", " -\n", "chaos          skipped: no PostgreSQL", "re-enacted    job rescuer", "The in-process mode (chaos -target river -inprocess) re-enacts none of them"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
