package repro

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

type level int8

type inner struct {
	Wait  int64
	Level level
	On    bool
}

// spec is a struct read as one setting, by its text.
type spec struct{ Level level }

type config struct {
	Name   string
	Count  int32
	Seeds  []uint16
	Inner  inner
	Spec   spec
	Keep   bool
	hidden int
}

func schemaOf(t *testing.T) *Schema {
	t.Helper()
	s, err := New(config{},
		Flag("Count", "count"), Flag("Name", "name"), Flag("Inner.On", "on"), Flag("Spec", "spec"),
		Duration("Inner.Wait"),
		Mode("Keep", "the command decides"),
		Text(func(i spec) (string, error) { return strings.Repeat("x", int(i.Level)), nil },
			func(s string) (spec, error) { return spec{Level: level(len(s))}, nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Diff, Args and the file bring every setting back; flags come in the
// order of their Flag options; the Mode field is left out.
func TestRoundTrip(t *testing.T) {
	s := schemaOf(t)
	base := config{Count: 4}
	v := config{Name: "a b", Count: 5, Seeds: []uint16{3, 7}, Inner: inner{Wait: 1500, Level: -2, On: true}, Spec: spec{Level: 3}, Keep: true}
	args, missing := Args(s.Diff(v, base))
	if want := []string{"-count", "5", "-name", "a b", "-on", "-spec", "xxx"}; !reflect.DeepEqual(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
	if got := Keys(missing); got != "Seeds, Inner.Wait, Inner.Level" {
		t.Errorf("missing %s", got)
	}
	var b bytes.Buffer
	if err := s.WriteFile(&b, Header{Kind: "k", Seed: 9, Notes: []string{"a note"}}, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nInner.Wait 1.5µs\n") || strings.Contains(b.String(), "Keep") || strings.Contains(b.String(), "hidden") {
		t.Errorf("file:\n%s", b.String())
	}
	back := base
	h, ext, err := s.ReadFile(&b, "f", &back)
	v.Keep = false
	if err != nil || h.Seed != 9 || h.Kind != "k" || len(ext) != 0 || !reflect.DeepEqual(back, v) {
		t.Errorf("read back %+v, %+v, %v, %v; want %+v", back, h, ext, err, v)
	}
}

// Values that would not read back as themselves are quoted.
func TestQuoting(t *testing.T) {
	s := schemaOf(t)
	for _, name := range []string{"", " lead", "trail ", `"q`, "new\nline", "tab\tx", "plain; text=*"} {
		var b bytes.Buffer
		if err := s.WriteFile(&b, Header{Kind: "k"}, config{Name: name}); err != nil {
			t.Fatal(err)
		}
		var back config
		if _, _, err := s.ReadFile(&b, "f", &back); err != nil || back.Name != name {
			t.Errorf("%q read back as %q (%v)", name, back.Name, err)
		}
	}
}

// A struct with a field of no text form, an option naming no field and a
// flag used twice are refused when the schema is built.
func TestNewRefuses(t *testing.T) {
	type bad struct{ F func() }
	if _, err := New(bad{}); err == nil || !strings.Contains(err.Error(), "F (func()) has no text form") {
		t.Errorf("a func field: %v", err)
	}
	if _, err := New(config{}, Flag("Nope", "nope")); err == nil || !strings.Contains(err.Error(), "Nope") {
		t.Errorf("an option naming no field: %v", err)
	}
	if _, err := New(config{}, Flag("Name", "x"), Flag("Count", "x")); err == nil || !strings.Contains(err.Error(), "share the flag -x") {
		t.Errorf("a flag twice: %v", err)
	}
}

// A bad file is an error naming its line.
func TestReadFileErrors(t *testing.T) {
	s := schemaOf(t)
	for text, want := range map[string]string{
		"":                                     "not a repro file (empty)",
		"Count 3\n":                            "f:1: not a repro file",
		"repro 1\nkind k\nseed 1\nCount x\n":   "f:4: Count \"x\": want an integer from -2147483648 to 2147483647",
		"repro 1\nkind k\nseed 1\nNope 1\n":    "f:4: unknown setting Nope",
		"repro 1\nkind k\nseed 1\nKeep true\n": "f:4: unknown setting Keep",
		"repro 1\nkind k\nseed 1\nName a\nName b\n": "f:5: Name given twice",
		"repro 1\nkind k\n":                         "no kind or seed line",
	} {
		var c config
		if _, _, err := s.ReadFile(strings.NewReader(text), "f", &c); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

func TestShell(t *testing.T) {
	if got := Shell("go", "test", "-run", "^A$/^b$", "-plan", "x nth=1; y", "", "it's"); got != `go test -run '^A$/^b$' -plan 'x nth=1; y' '' 'it'\''s'` {
		t.Errorf("Shell = %s", got)
	}
}
