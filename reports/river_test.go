package reports

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/target/rivertarget"
	"github.com/durasim/durasim/targetsim"
)

// The River report's sentences, held to the tables and trace lines they
// stand beside, in both languages: each test reads the rendered Markdown,
// not the runs, so a sentence that drifted from its table fails here.

// riverText is the rendered River report in language l.
func riverText(t *testing.T, l Lang) string {
	t.Helper()
	return fileText(t, generated(t), string(l)+"/"+RiverName+".md")
}

// mdTable reads the first table after heading (a line of the report)
// and before the next heading: its header and rows, cells unescaped.
func mdTable(t *testing.T, text, heading string) (head []string, rows [][]string) {
	t.Helper()
	_, rest, ok := strings.Cut(text, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no %q in the report", heading)
	}
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ") {
			break
		}
		if strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "| ") {
			if head != nil {
				break
			}
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
		if head == nil {
			head = cells
			continue
		}
		rows = append(rows, cells)
	}
	if head == nil {
		t.Fatalf("no table under %q", heading)
	}
	return head, rows
}

// column is the index of a table's column named name.
func column(t *testing.T, head []string, name string) int {
	t.Helper()
	i := slices.Index(head, name)
	if i < 0 {
		t.Fatalf("no column %q in %v", name, head)
	}
	return i
}

var (
	boldRe = regexp.MustCompile(`\*\*([0-9.,]+)\*\*`)
	codeRe = regexp.MustCompile("`([^`]+)`")
)

// bolds are the bold numbers of a sentence, in order.
func bolds(t *testing.T, l Lang, s string) []int64 {
	t.Helper()
	var out []int64
	for _, m := range boldRe.FindAllStringSubmatch(s, -1) {
		n, ok := parseFigure(l, m[1])
		if !ok {
			t.Fatalf("bold %q does not parse", m[1])
		}
		out = append(out, n)
	}
	return out
}

// boldsAre fails t unless the bold numbers of sentence s are want, in
// order.
func boldsAre(t *testing.T, l Lang, s string, want []int64) {
	t.Helper()
	if got := bolds(t, l, s); !slices.Equal(got, want) {
		t.Errorf("%s: %q: numbers %v, the table says %v", l, s, got, want)
	}
}

// columnSum adds up the numbers of a table's column named name.
func columnSum(t *testing.T, l Lang, head []string, rows [][]string, name string) int64 {
	t.Helper()
	n, c := int64(0), column(t, head, name)
	for _, r := range rows {
		n += atoi(t, l, r[c])
	}
	return n
}

func atoi(t *testing.T, l Lang, s string) int64 {
	t.Helper()
	n, ok := parseFigure(l, strings.Trim(s, "`*"))
	if !ok {
		t.Fatalf("%q is not a number", s)
	}
	return n
}

// lineAfter is the first non-empty line after the table under heading.
func lineAfter(t *testing.T, text, heading string, skip int) string {
	t.Helper()
	_, rest, _ := strings.Cut(text, "\n"+heading+"\n")
	inTable := false
	for _, line := range strings.Split(rest, "\n") {
		switch {
		case strings.HasPrefix(line, "|"):
			inTable = true
		case inTable && line != "":
			if skip == 0 {
				return line
			}
			skip--
		}
	}
	t.Fatalf("no line after the table under %q", heading)
	return ""
}

// designRow is a row of the design table, read back.
type designRow struct {
	design, promise string
	ran             int64
	caught          int64  // 0: not caught
	check           string // the check that caught it
	river           string // River's guarantees cell
	shrunk          string
}

var verdictRe = map[Lang]*regexp.Regexp{
	PtBR: regexp.MustCompile("^(?:pega na semente|\\*\\*falha\\*\\* na semente) (\\d+) por `([^`]+)`$"),
	En:   regexp.MustCompile("^(?:caught at seed|\\*\\*fails\\*\\* seed) (\\d+) by `([^`]+)`$"),
}

func designRows(t *testing.T, l Lang, text string) []designRow {
	t.Helper()
	head, rows := mdTable(t, text, "## "+l.t("As arquiteturas de handler", "The handler designs"))
	col := func(name string) int { return column(t, head, name) }
	var out []designRow
	for _, r := range rows {
		_, ran, _ := strings.Cut(r[col(l.t("sementes", "seeds"))], "–")
		d := designRow{design: strings.Trim(r[col(l.t("arquitetura", "design"))], "`"), promise: r[col(l.t("promessa", "promise"))],
			ran: atoi(t, l, ran), river: r[col(l.t("garantias do River", "River's guarantees"))], shrunk: r[col(l.t("contraexemplo reduzido", "shrunk counterexample"))]}
		if m := verdictRe[l].FindStringSubmatch(r[col(l.t("resultado", "verdict"))]); m != nil {
			d.caught, d.check = atoi(t, l, m[1]), m[2]
		}
		out = append(out, d)
	}
	return out
}

// TestRiverDesignSentence holds the sentences under the design table to
// the table: counts of correct and naive designs, who passes, where each
// naive one was caught and by which check, and River's own guarantees.
func TestRiverDesignSentence(t *testing.T) {
	for _, l := range Langs() {
		text := riverText(t, l)
		rows := designRows(t, l, text)
		heading := "## " + l.t("As arquiteturas de handler", "The handler designs")
		s := lineAfter(t, text, heading, 0)
		var correct, passed, naive, caught []designRow
		for _, r := range rows {
			if r.promise == l.t("correta", "correct") {
				correct = append(correct, r)
				if r.caught == 0 {
					passed = append(passed, r)
				}
				continue
			}
			naive = append(naive, r)
			if r.caught != 0 {
				caught = append(caught, r)
			}
		}
		want := []int64{int64(len(correct)), int64(len(passed)), correct[0].ran, int64(len(naive)), int64(len(caught))}
		for _, r := range caught {
			want = append(want, r.caught)
			if !strings.Contains(s, "`"+r.design+"`") || !strings.Contains(s, "`"+r.check+"`") {
				t.Errorf("%s: %q leaves out %s or its check %s", l, s, r.design, r.check)
			}
		}
		boldsAre(t, l, s, want)
		for _, r := range correct {
			if r.ran != correct[0].ran {
				t.Errorf("%s: %s ran 1–%d, the others 1–%d", l, r.design, r.ran, correct[0].ran)
			}
		}
		// River's own guarantees: every run held them, or the sentence
		// counts the runs the table's column names.
		q := lineAfter(t, text, heading, 1)
		var runs, bad int64
		for _, r := range rows {
			runs += r.ran
			if r.river != l.t("mantidas", "held") {
				seeds := regexp.MustCompile(`\d+`).FindAllString(r.river, -1)
				slices.Sort(seeds)
				bad += int64(len(slices.Compact(seeds)))
			}
		}
		want = []int64{runs}
		if bad > 0 {
			want = []int64{bad, runs}
		}
		boldsAre(t, l, q, want)
	}
}

// TestRiverVerdict holds the verdict line to the checks table.
func TestRiverVerdict(t *testing.T) {
	verdictHolds(t, RiverName, riverText)
	if !river(t).Passed() {
		t.Errorf("the River report does not hold: %v", river(t).checks(En))
	}
}

// verdictHolds holds the verdict line of report name, whose text is
// text(t, l), to its checks table, in each language.
func verdictHolds(t *testing.T, name string, text func(*testing.T, Lang) string) {
	t.Helper()
	for _, l := range Langs() {
		text := text(t, l)
		_, rows := mdTable(t, text, "### "+l.t("Verificações", "Checks"))
		held := 0
		for _, r := range rows {
			if r[1] == "✓" {
				held++
			}
		}
		verdict := section(text, reportHeader(l, name, Written{Langs: Langs(), Index: true}))[0]
		want := fmt.Sprintf(l.t("(%d de %d verificações)", "(%d of %d checks)"), held, len(rows))
		if held != len(rows) {
			want = fmt.Sprintf(l.t("%d de %d verificações valem", "%d of %d checks hold"), held, len(rows))
		}
		if !strings.Contains(verdict, want) {
			t.Errorf("%s: verdict %q, the checks table has %d of %d", l, verdict, held, len(rows))
		}
	}
}

// TestRiverExposureSentence holds the exposure sentence to its table, and
// the runs the fault table counts to the same table.
func TestRiverExposureSentence(t *testing.T) {
	for _, l := range Langs() {
		text := riverText(t, l)
		heading := "## " + l.t("Exposição: dois workers no mesmo job", "Exposure: two workers on one job")
		head, rows := mdTable(t, text, heading)
		sum := func(name string) int64 { return columnSum(t, l, head, rows, name) }
		runs := sum(l.t("sementes", "seeds"))
		want := []int64{runs, sum(l.t("sobreposições", "overlaps")), sum(l.t("sementes com alguma", "seeds with one")),
			sum(l.t("contextos expirados", "contexts expired")), sum(l.t("gravações de zumbi", "zombie writes"))}
		if f := sum(l.t("falhas do handler", "handler failures")); f > 0 {
			want = append(want, f)
		}
		s := lineAfter(t, text, heading, 0)
		boldsAre(t, l, s, want)
		if !strings.Contains(text, fmt.Sprintf(l.t("nas %s das arquiteturas corretas:", "in the %s of the correct designs:"),
			l.count(int(runs), "execução", "execuções", "run", "runs"))) {
			t.Errorf("%s: the fault table does not count the %d runs of the exposure table", l, runs)
		}
	}
}

// TestRiverRemedySentence holds the sentence under the contrast table to
// it.
func TestRiverRemedySentence(t *testing.T) {
	for _, l := range Langs() {
		text := riverText(t, l)
		heading := "## " + l.t("O que o handler precisa fazer", "What a handler must do on top")
		head, rows := mdTable(t, text, heading)
		byDesign := map[string][]string{}
		for _, r := range rows {
			byDesign[strings.Trim(r[0], "`")] = r
		}
		eff := 2 // "effects of <doc>"
		if !strings.HasPrefix(head[eff], l.t("efeitos de ", "effects of ")) {
			t.Fatalf("%s: column %q", l, head[eff])
		}
		stale := column(t, head, l.t("conclusões alheias desfeitas", "completions not its own rolled back"))
		pass := int64(0)
		for _, r := range rows[1:] {
			if r[1] == l.t("nenhuma", "none") {
				pass++
			}
		}
		checked, docu := byDesign[targetsim.TxChecked.String()], byDesign[targetsim.TxAsDocumented.String()]
		want := []int64{atoi(t, l, checked[eff]), atoi(t, l, docu[eff]), atoi(t, l, checked[stale]), int64(len(rows) - 1), pass}
		s := lineAfter(t, text, heading, 0)
		boldsAre(t, l, s, want)
		if doc := strings.TrimPrefix(head[eff], l.t("efeitos de ", "effects of ")); !strings.Contains(s, doc) {
			t.Errorf("%s: %q does not name the table's document %s", l, s, doc)
		}
	}
}

// traceLine is a line of the report's trace block, read back.
type traceLine struct {
	seq    uint64
	text   string
	t      model.Time
	actor  string
	kind   string
	fields map[string]string // key=value fields, and bare flags as "flag"→""
}

var traceRe = regexp.MustCompile(`^#(\d+) +(t=(\d+)\.(\d{3})s (\S+) (\S+).*)$`)

// traceBlock reads the code block of the pattern's trace lines.
func traceBlock(t *testing.T, text string) []traceLine {
	t.Helper()
	var out []traceLine
	for _, block := range strings.Split(text, "```\n")[1:] {
		for _, line := range strings.Split(block, "\n") {
			m := traceRe.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			seq, _ := strconv.ParseUint(m[1], 10, 64)
			sec, _ := strconv.ParseInt(m[3], 10, 64)
			msec, _ := strconv.ParseInt(m[4], 10, 64)
			tl := traceLine{seq: seq, text: m[2], t: (sec*1000 + msec) * model.Millisecond, actor: m[5], kind: m[6], fields: map[string]string{}}
			for _, f := range strings.Fields(m[2])[3:] {
				k, v, _ := strings.Cut(f, "=")
				tl.fields[k] = v
			}
			out = append(out, tl)
		}
	}
	return out
}

// setting reads a duration of the setup table.
func setting(t *testing.T, l Lang, text, name string) model.Time {
	t.Helper()
	_, rows := mdTable(t, text, "## "+l.t("Configuração", "Setup"))
	for _, r := range rows {
		if r[0] == name {
			v, _, _ := strings.Cut(r[1], " (")
			d, ok := parseFigure(l, v)
			if !ok {
				t.Fatalf("%s: %s = %q", l, name, r[1])
			}
			return d
		}
	}
	t.Fatalf("%s: no setting %s", l, name)
	return 0
}

// TestRiverPatternBullets holds the walk through the documented pattern
// to the trace lines it shows: every event a bullet cites is in the
// block, every field it quotes (key=value) is in the line of the event
// it cited last before it, every
// worker it names acts in one; and the block itself shows the
// pattern the bullets tell, found here again from its text alone.
func TestRiverPatternBullets(t *testing.T) {
	workerRe, refRe := regexp.MustCompile(`\bw\d+(?:\.\d+)?\b`), regexp.MustCompile("`#(\\d+)`")
	for _, l := range Langs() {
		text := riverText(t, l)
		block := traceBlock(t, text)
		if len(block) == 0 {
			t.Fatalf("%s: no trace block", l)
		}
		bySeq := map[uint64]traceLine{}
		for _, tl := range block {
			bySeq[tl.seq] = tl
		}
		var bullets []string
		for _, line := range section(text, "### "+l.t("O que elas mostram", "What they show")) {
			if b, ok := strings.CutPrefix(line, "- "); ok {
				bullets = append(bullets, b)
			} else {
				break // the diagram
			}
		}
		if len(bullets) != 4 {
			t.Fatalf("%s: %d bullets, want 4", l, len(bullets))
		}
		cited := make([][]traceLine, len(bullets))
		for i, b := range bullets {
			var last *traceLine // the event cited last, whose line a quoted field is from
			for _, m := range codeRe.FindAllStringSubmatch(b, -1) {
				if r := refRe.FindStringSubmatch("`" + m[1] + "`"); r != nil {
					seq, _ := strconv.ParseUint(r[1], 10, 64)
					tl, ok := bySeq[seq]
					if !ok {
						t.Errorf("%s: bullet %d cites #%d, which the block does not show", l, i+1, seq)
						last = nil
						continue
					}
					cited[i] = append(cited[i], tl)
					last = &tl
					continue
				}
				if regexp.MustCompile(`^[a-z_]+=`).MatchString(m[1]) && (last == nil || !strings.Contains(last.text, m[1])) {
					t.Errorf("%s: bullet %d quotes %q, which the line it cites before does not hold", l, i+1, m[1])
				}
			}
			for _, w := range workerRe.FindAllString(b, -1) {
				if !slices.ContainsFunc(cited[i], func(tl traceLine) bool { return tl.actor == w }) {
					t.Errorf("%s: bullet %d names %s, who acts in no line it cites", l, i+1, w)
				}
			}
		}
		checkPatternInBlock(t, l, text, block, bullets, cited)
	}
}

// checkPatternInBlock finds the pattern in the trace block by its text and
// checks the bullets cite its lines and its durations.
func checkPatternInBlock(t *testing.T, l Lang, text string, block []traceLine, bullets []string, cited [][]traceLine) {
	t.Helper()
	find := func(from int, f func(tl traceLine) bool) (traceLine, int) {
		for i := from; i < len(block); i++ {
			if f(block[i]) {
				return block[i], i
			}
		}
		t.Fatalf("%s: the trace block does not show the pattern", l)
		return traceLine{}, 0
	}
	report, ri := find(0, func(tl traceLine) bool {
		_, applied := tl.fields["applied"]
		return tl.kind == "report" && tl.fields["outcome"] == "error" && applied
	})
	// the reporter's fetch: the last before its report, of an earlier attempt
	var fetchA traceLine
	for _, tl := range block[:ri] {
		if tl.kind == "fetch" && tl.actor == report.actor {
			fetchA = tl
		}
	}
	if fetchA.seq == 0 || atoi(t, l, fetchA.fields["attempt"]) >= atoi(t, l, report.fields["attempt"]) {
		t.Fatalf("%s: %q is not a superseded attempt's report", l, report.text)
	}
	timeout, _ := find(0, func(tl traceLine) bool {
		return tl.kind == "timeout" && tl.actor == report.actor && tl.fields["attempt"] == fetchA.fields["attempt"] && tl.seq < report.seq
	})
	fetchB, _ := find(0, func(tl traceLine) bool { return tl.kind == "fetch" && tl.fields["attempt"] == report.fields["attempt"] })
	stuck, _ := find(0, func(tl traceLine) bool { return tl.kind == "stuck" && tl.seq > fetchA.seq && tl.seq < fetchB.seq })
	complete, ci := find(ri, func(tl traceLine) bool { return tl.kind == "complete_tx" && tl.actor == fetchB.actor })
	if complete.fields["returned"] == target.Completed.String() {
		t.Fatalf("%s: %q came back completed", l, complete.text)
	}
	commit, _ := find(ci, func(tl traceLine) bool { return tl.kind == "commit" && tl.fields["tx"] == complete.fields["tx"] })
	effectB, _ := find(0, func(tl traceLine) bool { return tl.kind == "effect" && tl.fields["tx"] == complete.fields["tx"] })
	effectC, _ := find(ci, func(tl traceLine) bool {
		_, applied := tl.fields["applied"]
		return tl.kind == "effect" && applied && tl.fields["key"] == effectB.fields["key"]
	})
	if atoi(t, l, effectC.fields["attempt"]) <= atoi(t, l, effectB.fields["attempt"]) {
		t.Fatalf("%s: %q is not a later attempt's effect", l, effectC.text)
	}
	rescueAfter, jobTimeout := setting(t, l, text, "RescueStuckJobsAfter"), setting(t, l, text, "JobTimeout")
	if stuck.t-fetchA.t < rescueAfter || timeout.t-fetchA.t <= jobTimeout {
		t.Errorf("%s: the attempt did not outlive RescueStuckJobsAfter %s and JobTimeout %s", l, l.dur(rescueAfter), l.dur(jobTimeout))
	}
	wants := [][]traceLine{{fetchA, stuck, fetchB}, {timeout, report}, {complete, effectB, commit}, {effectC, effectB}}
	for i, want := range wants {
		for _, w := range want {
			if !slices.ContainsFunc(cited[i], func(tl traceLine) bool { return tl.seq == w.seq }) {
				t.Errorf("%s: bullet %d does not cite #%d (%s)", l, i+1, w.seq, w.text)
			}
		}
	}
	for i, d := range map[int]string{0: l.dur(rescueAfter), 1: l.dur(jobTimeout)} {
		if !strings.Contains(bullets[i], "("+d+")") {
			t.Errorf("%s: bullet %d does not give the setup's %s", l, i+1, d)
		}
	}
	if !strings.Contains(bullets[1], l.dur(timeout.t-fetchA.t)+l.t(" depois da busca", " after its fetch")) {
		t.Errorf("%s: bullet 2 does not give the %s between fetch and timeout", l, l.dur(timeout.t-fetchA.t))
	}
	// The section's lead names the seed and the shrunk sizes of the table.
	for _, r := range designRows(t, l, text) {
		if r.design != targetsim.TxAsDocumented.String() {
			continue
		}
		lead := section(text, "## "+l.t("O padrão documentado: ", "The documented pattern: ")+"`tx-as-documented`")[1]
		if bolds(t, l, lead)[0] != r.caught {
			t.Errorf("%s: %q: the table catches it at seed %d", l, lead, r.caught)
		}
		sizes := r.shrunk[strings.LastIndex(r.shrunk, "; ")+2:] // after the plan, which has its own "; "
		docs, workers, _ := strings.Cut(sizes, ", ")
		if !strings.Contains(lead, docs) || !strings.Contains(lead, workers) {
			t.Errorf("%s: %q: the table shrinks it to %s", l, lead, sizes)
		}
	}
}

// TestRiverPatternReader: the pattern is read only where it is — not in a
// run without a violation, nor once any of its steps is taken out.
func TestRiverPatternReader(t *testing.T) {
	rv := river(t)
	if rv.Pattern == nil {
		t.Fatalf("no pattern: %s", rv.PatternErr)
	}
	if _, err := readPattern(rv.Contrast[1].Result); err == nil {
		t.Error("read a pattern in tx-checked's run, which breaks nothing")
	}
	for name, spoil := range map[string]func(p *Pattern, o *target.Op){
		"report of the same attempt": func(p *Pattern, o *target.Op) {
			if o.Seq == p.FetchA.Seq {
				o.Attempt = p.ReportA.Attempt
			}
		},
		"completion came back completed": func(p *Pattern, o *target.Op) {
			if o.Seq == p.CompleteB.Seq {
				o.State = target.Completed
			}
		},
		"no timeout": func(p *Pattern, o *target.Op) {
			if o.Seq == p.TimeoutA.Seq {
				o.Kind = target.OpWork
			}
		},
		"no rescue": func(p *Pattern, o *target.Op) {
			if o.Seq == p.Rescue.Seq {
				o.Applied = false
			}
		},
		"rolled back": func(p *Pattern, o *target.Op) {
			if o.Seq == p.CommitB.Seq {
				o.Kind = target.OpRollback
			}
		},
	} {
		res := *rv.Documented
		res.Ops = slices.Clone(res.Ops)
		for i := range res.Ops {
			spoil(rv.Pattern, &res.Ops[i])
		}
		if _, err := readPattern(&res); err == nil {
			t.Errorf("%s: the pattern still read", name)
		}
	}
}

// TestRiverTexts: every fault kind, design and target check has its words.
func TestRiverTexts(t *testing.T) {
	for _, k := range targetsim.FaultKinds() {
		if tx := faultText[k.String()]; tx[0] == "" || tx[1] == "" {
			t.Errorf("fault %s has no text", k)
		}
	}
	for _, d := range targetsim.Designs() {
		if designPt[d] == "" {
			t.Errorf("design %s has no Portuguese text", d)
		}
	}
	for _, name := range invariants.TargetChecks() {
		if tx := checkText[name]; tx[0] == "" || tx[1] == "" {
			t.Errorf("check %s has no text", name)
		}
	}
}

// TestRiverVersion holds riverVersion to go.mod's River and riversqlite,
// and to the binary's build information where it has any.
func TestRiverVersion(t *testing.T) {
	mod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"github.com/riverqueue/river", "github.com/riverqueue/river/riverdriver/riversqlite"} {
		re := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(m) + ` (v\S+)`)
		if got := re.FindSubmatch(mod); got == nil || string(got[1]) != riverVersion {
			t.Errorf("go.mod pins %s at %q; the report says %s", m, got, riverVersion)
		}
	}
	if v := rivertarget.Version(); v != "(devel)" && v != riverVersion {
		t.Errorf("the build has River %s; the report says %s", v, riverVersion)
	}
}

// TestRiverSources finds what the report quotes of River (its source, its
// changelog, the line riversqlite does not build with on 32 bits) in the
// modules the build uses, at the versions it uses.
func TestRiverSources(t *testing.T) {
	dir := func(module string) string {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
		if err != nil || strings.TrimSpace(string(out)) == "" {
			t.Fatalf("go list -m %s: %v", module, err)
		}
		return strings.TrimSpace(string(out))
	}
	// norm joins a Go comment's lines: no comment marks, single spaces.
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, "// ", " ")), " ") }
	read := func(module, file string) string {
		b, err := os.ReadFile(filepath.Join(dir(module), file))
		if err != nil {
			t.Fatal(err)
		}
		return norm(string(b))
	}
	for _, q := range riverQuotes {
		if !strings.Contains(read(q.module, q.file), norm(q.text)) {
			t.Errorf("%s/%s does not say %q", q.module, q.file, q.text)
		}
	}
	if !strings.Contains(read("github.com/riverqueue/river", "CHANGELOG.md"), norm(riverChangelog048)) {
		t.Error("River's CHANGELOG.md lacks the 0.48.0 entry the notes cite")
	}
	if !strings.Contains(read("github.com/riverqueue/river/riverdriver/riversqlite", "river_sqlite_driver.go"), riverSQLite32) {
		t.Errorf("riversqlite no longer has %s: check GOARCH=386 and rewrite the finding", riverSQLite32)
	}
}
