package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/targetsim"
)

// The side-by-side report's sentences, held to the tables beside them,
// in both languages, and the two languages to the same facts: each test
// reads the rendered Markdown, not the runs.

func side(t *testing.T) *Side {
	t.Helper()
	generated(t)
	if genSide == nil {
		t.Fatal("the side-by-side report was not built")
	}
	return genSide
}

func sideText(t *testing.T, l Lang) string {
	t.Helper()
	return fileText(t, generated(t), string(l)+"/"+SideName+".md")
}

// TestSideDesignSentence holds the sentence under the designs table to
// it: per library, the correct designs that pass, the naive ones caught.
func TestSideDesignSentence(t *testing.T) {
	for _, l := range Langs() {
		text := sideText(t, l)
		heading := "## " + l.t("As arquiteturas de handler nas três", "The handler designs on the three")
		head, rows := mdTable(t, text, heading)
		var want []int64
		for _, lib := range libraries {
			c := column(t, head, lib)
			var correct, passed, naive, caught int64
			for _, r := range rows {
				cell := r[c]
				switch {
				case cell == "–":
				case strings.HasPrefix(cell, l.t("correta: ", "correct: ")):
					correct++
					if strings.HasPrefix(cell, l.t("correta: passa", "correct: passes")) {
						passed++
					}
				case strings.HasPrefix(cell, l.t("ingênua: ", "naive: ")):
					naive++
					if !strings.Contains(cell, l.t("não foi pega", "not caught")) {
						caught++
					}
				default:
					t.Fatalf("%s: %s cell %q", l, lib, cell)
				}
			}
			want = append(want, passed, correct, caught, naive)
		}
		s := lineAfter(t, text, heading, 0)
		boldsAre(t, l, s, want)
		for _, lib := range libraries {
			if !strings.Contains(s, lib) {
				t.Errorf("%s: %q leaves out %s", l, s, lib)
			}
		}
	}
}

// TestSideFindingSentence holds the sentence under the findings table to
// it: the findings per library, those a run of the report shows, those
// with a plain Go test.
func TestSideFindingSentence(t *testing.T) {
	for _, l := range Langs() {
		text := sideText(t, l)
		heading := "## " + l.t("O que o durasim achou", "What durasim found")
		head, rows := mdTable(t, text, heading)
		lib, seed, check, repro := column(t, head, l.t("biblioteca", "library")), column(t, head, l.t("semente", "seed")),
			column(t, head, l.t("verificação", "check")), column(t, head, l.t("teste Go simples", "plain Go test"))
		want := []int64{int64(len(rows))}
		for _, name := range libraries {
			n := int64(0)
			for _, r := range rows {
				if r[lib] == name {
					n++
				}
			}
			want = append(want, n)
		}
		var shown, plain int64
		for _, r := range rows {
			if r[seed] != "–" && !strings.HasPrefix(r[check], "✗") {
				shown++
			}
			if !strings.HasPrefix(r[repro], l.t("nenhum sem o durasim", "none without durasim")) {
				plain++
			}
		}
		want = append(want, shown, plain)
		s := lineAfter(t, text, heading, 0)
		boldsAre(t, l, s, want)
	}
}

// TestSideOwnSentence holds the sentence under the own-guarantees table
// to it.
func TestSideOwnSentence(t *testing.T) {
	for _, l := range Langs() {
		text := sideText(t, l)
		heading := "### " + l.t("As garantias próprias de cada fila", "Each queue's own guarantees")
		head, rows := mdTable(t, text, heading)
		var want []int64
		for _, r := range rows {
			want = append(want, atoi(t, l, r[1]))
			for j := 2; j < len(head); j++ {
				if n, ok := parseFigure(l, r[j]); ok && n > 0 {
					want = append(want, n)
				}
			}
		}
		s := lineAfter(t, text, heading, 0)
		boldsAre(t, l, s, want)
		for _, r := range rows {
			for j := 2; j < len(head); j++ {
				if n, ok := parseFigure(l, r[j]); ok && n > 0 && !strings.Contains(s, head[j]) {
					t.Errorf("%s: %q leaves out %s's %s", l, s, r[0], head[j])
				}
			}
		}
	}
}

// TestSideAsynqSentence holds the asynq sentence to its table and the
// recording's settings, and the setup table to the recording's date.
func TestSideAsynqSentence(t *testing.T) {
	rec, err := recordedAsynq()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range Langs() {
		text := sideText(t, l)
		heading := "## " + l.t("De onde vêm os números do asynq", "Where the asynq figures come from")
		head, rows := mdTable(t, text, heading)
		sum := func(name string) int64 { return columnSum(t, l, head, rows, name) }
		want := []int64{int64(len(rows)), sum(l.t("quedas", "kills")), sum(l.t("zumbis retomados", "zombies taken over")),
			sum(l.t("sobreposições", "overlaps")), sum(l.t("gravações de zumbi", "zombie writes"))}
		s := lineAfter(t, text, heading, 0)
		boldsAre(t, l, s, want)
		if !strings.Contains(s, "TZ="+rec.Runs[0].TZ) {
			t.Errorf("%s: %q does not give the recording's TZ %s", l, s, rec.Runs[0].TZ)
		}
		// kills per point add up to the kills
		per := column(t, head, l.t("por ponto", "per point"))
		for _, r := range rows {
			n := int64(0)
			for _, m := range regexp.MustCompile(`\d+`).FindAllString(r[per], -1) {
				n += atoi(t, l, m)
			}
			if n != atoi(t, l, r[column(t, head, l.t("quedas", "kills"))]) {
				t.Errorf("%s: %s: the kills per point %q do not add up to %s", l, r[0], r[per], r[1])
			}
		}
		lead := section(text, heading)[0]
		if !strings.Contains(lead, AsynqFile) || !strings.Contains(lead, rec.recordedDate()) {
			t.Errorf("%s: %q does not name %s and its date %s", l, lead, AsynqFile, rec.recordedDate())
		}
		_, setup := mdTable(t, text, "## "+l.t("Uma carga, uma mistura de falhas", "One workload, one fault mix"))
		if !strings.Contains(setup[0][3], rec.recordedDate()) {
			t.Errorf("%s: the setup's asynq mode %q does not give the recording's date", l, setup[0][3])
		}
	}
}

// TestSideVerdict holds the verdict line to the checks table, and the
// report to its checks.
func TestSideVerdict(t *testing.T) {
	verdictHolds(t, SideName, sideText)
	if !side(t).Passed() {
		t.Errorf("the side-by-side report does not hold: %v", side(t).checks(En))
	}
}

// TestSideChecksCatch: the report's checks fail where the runs do not
// show what they must: a correct design caught, a naive one that
// passed, a finding that did not reproduce.
func TestSideChecksCatch(t *testing.T) {
	s := side(t)
	for name, spoil := range map[string]func(c *Side){
		"a correct design caught on goqite": func(c *Side) {
			for i, sw := range c.GoqiteSweeps {
				if sw.Design.CorrectOn(c.GoqitePolicy) {
					c.GoqiteSweeps[i].Caught, c.GoqiteSweeps[i].Check = &targetsim.Result{Seed: 1}, invariants.TargetEffectOnce
					return
				}
			}
		},
		"a naive design passing on asynq": func(c *Side) {
			for i, r := range c.Asynq.Runs {
				if !r.design().Correct() {
					c.Asynq.Runs[i].Violations = map[string]int{}
					return
				}
			}
		},
		"a finding not shown": func(c *Side) { c.Findings[0].Shown = false },
	} {
		c := *s
		c.GoqiteSweeps = slices.Clone(s.GoqiteSweeps)
		rec := *s.Asynq
		rec.Runs = slices.Clone(s.Asynq.Runs)
		c.Asynq = &rec
		c.Findings = slices.Clone(s.Findings)
		spoil(&c)
		if c.Passed() {
			t.Errorf("%s: the checks still hold", name)
		}
	}
}

var sideFactRe = regexp.MustCompile("\\*\\*([0-9.,]+)\\*\\*|`([^`]+)`|\\b(\\d[\\d.,]*)\\b")

// TestSideSameFacts: both languages carry the same facts — the same
// numbers, names, checks, plans and commands, in the same order.
func TestSideSameFacts(t *testing.T) {
	facts := func(l Lang) []string {
		var out []string
		inBlock := false
		for _, line := range strings.Split(sideText(t, l), "\n") {
			if strings.HasPrefix(line, "```") {
				inBlock = !inBlock
				continue
			}
			if inBlock { // a command: the same, its comment aside
				cmd, _, _ := strings.Cut(line, "#")
				out = append(out, strings.TrimSpace(cmd))
				continue
			}
			for _, m := range sideFactRe.FindAllStringSubmatch(line, -1) {
				switch {
				case m[2] != "":
					out = append(out, "`"+m[2]+"`")
				default:
					if v, ok := parseFigure(l, strings.TrimRight(m[1]+m[3], ".,")); ok {
						out = append(out, fmt.Sprint(v))
					}
				}
			}
		}
		return out
	}
	pt, en := facts(PtBR), facts(En)
	if !slices.Equal(pt, en) {
		for i := range min(len(pt), len(en)) {
			if pt[i] != en[i] {
				t.Fatalf("fact %d differs: pt-BR %q, en %q (pt-BR has %d facts, en %d)\npt-BR: %q\nen:    %q", i, pt[i], en[i], len(pt), len(en),
					pt[max(0, i-4):min(len(pt), i+4)], en[max(0, i-4):min(len(en), i+4)])
			}
		}
		t.Fatalf("pt-BR has %d facts, en %d", len(pt), len(en))
	}
}

// TestSideRepros finds each finding's plain Go test (or durasim's own)
// in the module the report names.
func TestSideRepros(t *testing.T) {
	for _, f := range side(t).Findings {
		name := f.Repro
		if name == "" {
			name = f.Test
		}
		if name == "" {
			t.Errorf("%s: a finding with no test: %s", f.Lib, f.What[1])
			continue
		}
		found := false
		err := filepath.WalkDir(filepath.Join("..", f.Module), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			found = found || (err == nil && strings.Contains(string(b), "func "+name+"(t *testing.T)"))
			return err
		})
		if err != nil || !found {
			t.Errorf("%s: no func %s in %s (%v)", f.Lib, name, f.Module, err)
		}
	}
}

// TestAsynqRecord: the committed recording parses, and a recording with
// a run missing, out of order or undated is refused.
func TestAsynqRecord(t *testing.T) {
	rec, err := recordedAsynq()
	if err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(r *AsynqRecord){
		"a run missing": func(r *AsynqRecord) { r.Runs = r.Runs[1:] },
		"out of order":  func(r *AsynqRecord) { r.Runs[0], r.Runs[1] = r.Runs[1], r.Runs[0] },
		"undated":       func(r *AsynqRecord) { r.Recorded = "yesterday" },
		"no checks":     func(r *AsynqRecord) { r.Runs[0].Checked = nil },
	} {
		r := *rec
		r.Runs = slices.Clone(rec.Runs)
		spoil(&r)
		data, err := jsonOf(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseAsynqRecord(data); err == nil {
			t.Errorf("%s: the recording parsed", name)
		}
	}
}

// TestGoqiteVersion holds goqiteVersion to go.mod.
func TestGoqiteVersion(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^\s*maragu\.dev/goqite (v\S+)`)
	if got := re.FindSubmatch(mod); got == nil || string(got[1]) != goqiteVersion {
		t.Errorf("go.mod pins maragu.dev/goqite at %q; the report says %s", got, goqiteVersion)
	}
}
