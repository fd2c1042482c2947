package reports

import (
	"path"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/durasim/durasim/faults"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/sim"
)

// built is every scenario built once per test binary (with generated).
func built(t *testing.T) []*Built {
	t.Helper()
	generated(t)
	return genBuilt
}

// river is the River report built once per test binary (with generated).
func river(t *testing.T) *River {
	t.Helper()
	generated(t)
	if genRiver == nil {
		t.Fatal("the River report was not built")
	}
	return genRiver
}

// fileText returns the generated file at p.
func fileText(t *testing.T, files []File, p string) string {
	t.Helper()
	for _, f := range files {
		if f.Path == p {
			return string(f.Data)
		}
	}
	t.Fatalf("%s was not generated", p)
	return ""
}

var claimLine = regexp.MustCompile("^- `([^`]+)` — (.+?): \\*\\*([^*]+)\\*\\*, (.+?) `([^`]+)` \\(\\*\\*([^*]+)\\*\\*\\): (.+)\\.$")

// TestClaimsMatchFigures holds every sentence a report writes from a
// scenario's claims to the outcome table beside it, in both languages:
// the sentence names the claim's arms and figure, its numbers are the
// table's cells, its words ("more than", "the same as") say what those
// numbers say, and that is the relation the story relies on.
func TestClaimsMatchFigures(t *testing.T) {
	files := generated(t)
	checked := 0
	for _, b := range built(t) {
		for _, l := range Langs() {
			text := fileText(t, files, string(l)+"/"+b.Scenario.Name+".md")
			lines := section(text, "### "+l.t("O que os números mostram", "What the numbers show"))
			if len(lines) != len(b.Scenario.Claims) {
				t.Errorf("%s/%s: %d claim sentences, want %d", l, b.Scenario.Name, len(lines), len(b.Scenario.Claims))
				continue
			}
			table := outcomeTable(text)
			for k, line := range lines {
				if err := checkClaim(l, b.Scenario.Claims[k], line, table); err != "" {
					t.Errorf("%s/%s: %q: %s", l, b.Scenario.Name, line, err)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no claim sentence checked")
	}
}

// checkClaim compares one claim sentence with the claim and the table.
func checkClaim(l Lang, c scenarios.Claim, line string, table map[string]map[string]string) string {
	m := claimLine.FindStringSubmatch(line)
	switch {
	case m == nil:
		return "not a claim sentence"
	case m[1] != c.Arm || m[5] != c.Other || m[2] != l.pick(c.Figure.Says()):
		return "names other arms or another figure than the claim"
	}
	row := table[m[2]]
	if row == nil {
		return "its figure is not a row of the outcome table"
	}
	if row[c.Arm] != m[3] || row[c.Other] != m[6] {
		return "numbers differ from the table's " + row[c.Arm] + " and " + row[c.Other]
	}
	a, okA := parseFigure(l, m[3])
	v, okB := parseFigure(l, m[6])
	if !okA || !okB {
		return "numbers do not parse"
	}
	got := scenarios.RelOf(a, v)
	if m[4] != relText(l, got, c.Figure.Duration()) {
		return "its words do not say what its numbers say"
	}
	if got != c.Rel {
		return "the numbers no longer bear out the story's claim (" + c.Rel.String() + ")"
	}
	return ""
}

// section returns the non-empty lines under heading, up to the next one.
func section(text, heading string) []string {
	_, rest, ok := strings.Cut(text, "\n"+heading+"\n")
	if !ok {
		return nil
	}
	var out []string
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// outcomeTable reads the side-by-side table: row label → arm → cell.
func outcomeTable(text string) map[string]map[string]string {
	out := map[string]map[string]string{}
	var head []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "## ") {
			in = line == "## Resultado lado a lado" || line == "## Outcome side by side"
			continue
		}
		if !in || !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
		if head == nil {
			head = cells
			continue
		}
		row := map[string]string{}
		for i := 1; i < len(cells) && i < len(head); i++ {
			row[head[i]] = cells[i]
		}
		out[cells[0]] = row
	}
	return out
}

// parseFigure reads a count ("8,923", "8.923") or a duration ("62.7 s",
// "4,9 min", "250 ms") as printed in language l; durations in model time.
func parseFigure(l Lang, s string) (int64, bool) {
	num, unit, _ := strings.Cut(s, " ")
	scale := map[string]float64{"": 0, "ms": 1, "s": 1000, "min": 60_000}
	f, ok := scale[unit]
	if !ok {
		return 0, false
	}
	thousands, decimal := ",", "."
	if l == PtBR {
		thousands, decimal = ".", ","
	}
	if f == 0 {
		n, err := strconv.ParseInt(strings.ReplaceAll(num, thousands, ""), 10, 64)
		return n, err == nil
	}
	x, err := strconv.ParseFloat(strings.ReplaceAll(num, decimal, "."), 64)
	return int64(x * f * float64(model.Millisecond)), err == nil
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// brokenLinks lists the relative links of the Markdown files that point at
// no file among files.
func brokenLinks(files []File) []string {
	have := map[string]bool{}
	for _, f := range files {
		have[f.Path] = true
	}
	var bad []string
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".md") {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(f.Data), -1) {
			target := path.Join(path.Dir(f.Path), m[1])
			if !strings.Contains(m[1], "://") && !have[target] {
				bad = append(bad, f.Path+" → "+m[1])
			}
		}
	}
	return bad
}

// TestLinksResolve checks every link of the full report set, and of a
// partial one (one scenario, one language, no index: what `durasim report
// -lang en -scenario retry-storm` writes), points at a file it wrote.
func TestLinksResolve(t *testing.T) {
	if bad := brokenLinks(generated(t)); len(bad) > 0 {
		t.Errorf("full report set: broken links %v", bad)
	}
	var storm *Built
	for _, b := range built(t) {
		if b.Scenario.Name == "retry-storm" {
			storm = b
		}
	}
	for _, l := range Langs() {
		files, err := Render([]Report{storm}, []Lang{l}, false)
		if err != nil {
			t.Fatal(err)
		}
		if bad := brokenLinks(files); len(bad) > 0 {
			t.Errorf("partial report in %s: broken links %v", l, bad)
		}
		if text := fileText(t, files, string(l)+"/retry-storm.md"); !strings.Contains(text, "](charts/retry-storm-calls.svg)") {
			t.Errorf("partial report in %s lost its chart links", l)
		}
	}
}

// TestMermaidLanes keeps every sequence diagram within maxLanes
// participants (retry-storm's job path had 17).
func TestMermaidLanes(t *testing.T) {
	for _, f := range generated(t) {
		for _, block := range strings.Split(string(f.Data), "```mermaid")[1:] {
			block, _, _ = strings.Cut(block, "```")
			if n := strings.Count(block, "\n    participant "); n > maxLanes {
				t.Errorf("%s: a diagram with %d participants, want at most %d", f.Path, n, maxLanes)
			}
		}
	}
}

// TestFlagSettings holds flagSettings to sim.Config.Flags, setting by
// setting: a setting is in the list exactly when changing it alone
// changes the printed flags. So Replayable cannot miss a flag (as it once
// missed -probe-status, -try-cancelled and -arrival-gap) nor claim one
// that does not exist.
func TestFlagSettings(t *testing.T) {
	d := sim.DefaultConfig()
	base := strings.Join(d.Flags(), " ")
	checked := 0
	for _, path := range leafSettings(reflect.TypeOf(d), "") {
		c := sim.DefaultConfig()
		if !perturb(reflect.ValueOf(&c).Elem(), path) {
			continue // a kind no test value covers (Backend: checked by hand below)
		}
		printed := strings.Join(c.Flags(), " ") != base
		if listed := slices.Contains(flagSettings, path); printed != listed {
			t.Errorf("%s: Flags prints it %v, flagSettings lists it %v", path, printed, listed)
		}
		if checked++; Replayable(c) != printed && !slices.Contains(unflagged, path) {
			t.Errorf("%s: Replayable %v after changing it alone", path, Replayable(c))
		}
	}
	if checked < 20 {
		t.Errorf("only %d settings checked", checked)
	}
	if !slices.Contains(flagSettings, "Backend") {
		t.Error("Flags prints -backend: Backend must be in flagSettings")
	}
}

// leafSettings lists the settings diffSettings compares, by path.
func leafSettings(typ reflect.Type, path string) []string {
	if typ.Kind() != reflect.Struct || slices.Contains(groups, path) {
		return []string{path}
	}
	var out []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		out = append(out, leafSettings(f.Type, p)...)
	}
	return out
}

// perturb changes the setting at path to another valid-looking value.
func perturb(v reflect.Value, path string) bool {
	for _, name := range strings.Split(path, ".") {
		v = v.FieldByName(name)
	}
	switch {
	case path == "Plan":
		p, err := faults.Parse("crash after_lease nth=1 worker=*")
		if err != nil {
			panic(err)
		}
		v.Set(reflect.ValueOf(p))
	case v.Kind() == reflect.Bool:
		v.SetBool(!v.Bool())
	case v.CanInt():
		v.SetInt(v.Int() + 1)
	case v.CanUint():
		v.SetUint(v.Uint() + 1)
	case v.Kind() == reflect.String:
		v.SetString(v.String() + "x")
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Int32:
		v.Set(reflect.ValueOf([]int32{1}))
	case v.Kind() == reflect.Struct:
		f := v.Field(0)
		if !f.CanInt() {
			return false
		}
		f.SetInt(f.Int() + 1)
	default:
		return false
	}
	return true
}
