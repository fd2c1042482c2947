package mutation

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Counts tallies outcomes by status.
type Counts [StatusCount]int

func (c Counts) killed() int { return c[Killed] + c[Crashed] + c[TimedOut] }

// Score is killed (violations, crashes, timeouts) over killed plus
// survived; withArgued also counts the argued-equivalent survivors as
// survivors. A run with nothing to judge scores 100.
func (c Counts) Score() (score, withArgued float64) {
	return percent(c.killed(), c.killed()+c[Survived]), percent(c.killed(), c.killed()+c[Survived]+c[Equivalent])
}

// Tally counts the outcomes, overall and per operator.
func (r *Report) Tally() (all Counts, byOp [OperatorCount]Counts) {
	for _, o := range r.Outcomes {
		all[o.Status]++
		byOp[o.Mutant.Op][o.Status]++
	}
	return all, byOp
}

// WriteText prints the report: the counts, per operator and overall, the
// score against target, timings, and every survivor.
func (r *Report) WriteText(w io.Writer, target float64) {
	all, byOp := r.Tally()
	fmt.Fprintf(w, "mutation    %s, killer: %s\n", r.ImportPath, strings.Join(r.Killer, " "))
	fmt.Fprintf(w, "coverage    %d of %d statements reached by the unmutated killer (%.1f%%)\n", r.Reached, r.Statements, percent(r.Reached, r.Statements))
	fmt.Fprintf(w, "baseline    the unmutated killer passes in %s; timeout %s per mutant\n", r.Baseline.Round(time.Millisecond), r.Timeout.Round(time.Millisecond))
	fmt.Fprintf(w, "mutants     %d enumerated, %d selected\n\n", r.Enumerated, len(r.Outcomes))
	writeTable(w, all, byOp)
	byCat := r.catalogueKills()
	fmt.Fprintf(w, "\nkilled      %d (violation %d, crash %d)\n", all[Killed]+all[Crashed], all[Killed], all[Crashed])
	if byCat > 0 {
		fmt.Fprintf(w, "            %d of the violations by the catalogue (a naive variant no longer caught), none by the correct design's sweep\n", byCat)
	}
	fmt.Fprintf(w, "timed out   %d (counted as killed)\n", all[TimedOut])
	fmt.Fprintf(w, "survived    %d (%d with the reason the killer cannot see them, %d unexplained), and %d argued equivalent\n",
		all[Survived], all[Survived]-r.Unexplained(), r.Unexplained(), all[Equivalent])
	fmt.Fprintf(w, "not covered %d (the unmutated killer never reaches them: not run)\n", all[NotCovered])
	fmt.Fprintf(w, "not viable  %d (do not compile: not counted)\n", all[NotViable])
	score, withArgued := all.Score()
	verdict := "met"
	if score < target {
		verdict = "NOT met"
	}
	fmt.Fprintf(w, "score       %.1f%% = killed %d / (killed %d + survived %d); target >= %g%%: %s\n",
		score, all.killed(), all.killed(), all[Survived], target, verdict)
	fmt.Fprintf(w, "            %.1f%% if the argued-equivalent survivors counted as survived\n", withArgued)
	if byCat > 0 {
		fmt.Fprintf(w, "            %.1f%% by the correct design's sweep alone (the catalogue's kills counted as survived)\n",
			percent(all.killed()-byCat, all.killed()+all[Survived]))
	}
	r.writeTimes(w)
	r.writePerFile(w)
	r.writeList(w, Survived, "survivors")
	r.writeList(w, Equivalent, "argued equivalent")
	writeEntries(w, "stale equivalent entries (they match no mutant)", r.Stale)
	writeEntries(w, "entries argued equivalent or explained, but killed", r.Misjudged)
}

// Unexplained counts the survivors with no reason: each needs a check that
// kills it, an argument that it is equivalent, or the reason it survives.
func (r *Report) Unexplained() int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Status == Survived && o.Reason == "" {
			n++
		}
	}
	return n
}

// catalogueKills counts the mutants only the killer's catalogue check
// caught (cmd/killer -catalogue): its verdict line starts "catalogue:".
func (r *Report) catalogueKills() int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Status == Killed && strings.HasPrefix(o.Detail, "catalogue:") {
			n++
		}
	}
	return n
}

func writeTable(w io.Writer, all Counts, byOp [OperatorCount]Counts) {
	fmt.Fprintf(w, "%-22s %6s", "operator", "total")
	for st := range StatusCount {
		fmt.Fprintf(w, " %11s", st)
	}
	fmt.Fprintln(w)
	row := func(name string, c Counts) {
		total := 0
		for _, n := range c {
			total += n
		}
		fmt.Fprintf(w, "%-22s %6d", name, total)
		for _, n := range c {
			fmt.Fprintf(w, " %11d", n)
		}
		fmt.Fprintln(w)
	}
	for op := range OperatorCount {
		row(op.String(), byOp[op])
	}
	row("all", all)
}

func (r *Report) writeTimes(w io.Writer) {
	var build, run time.Duration
	built, ran, inSchema := 0, 0, 0
	for _, o := range r.Outcomes {
		if o.Schema {
			inSchema++
		} else if o.Build > 0 {
			build, built = build+o.Build, built+1
		}
		if o.Schema || o.Build > 0 {
			run, ran = run+o.Run, ran+1
		}
	}
	fmt.Fprintf(w, "time        %s in all, %d at a time", r.Elapsed.Round(time.Second), r.Jobs)
	if ran > 0 {
		fmt.Fprintf(w, "; the killer ran %s per mutant on average", (run / time.Duration(ran)).Round(time.Millisecond))
	}
	fmt.Fprintln(w)
	if r.Schema > 0 {
		fmt.Fprintf(w, "schema      %d mutants switched in one build (%s to build; with no mutant on it passes in %s and prints what the unmutated killer prints)\n",
			inSchema, r.Schema.Round(time.Millisecond), r.SchemaRun.Round(time.Millisecond))
	}
	if built > 0 {
		fmt.Fprintf(w, "built alone %d mutants, %s per build on average\n", built, (build / time.Duration(built)).Round(time.Millisecond))
	}
}

// writePerFile prints each file's score and survivors, in file order.
func (r *Report) writePerFile(w io.Writer) {
	var files []string
	per := map[string]*Counts{}
	for _, o := range r.Outcomes {
		f := o.Mutant.File
		if per[f] == nil {
			per[f] = &Counts{}
			files = append(files, f)
		}
		per[f][o.Status]++
	}
	var parts []string
	for _, f := range files {
		c := per[f]
		if c.killed()+c[Survived] > 0 {
			score, _ := c.Score()
			parts = append(parts, fmt.Sprintf("%s %.0f%% (%d survived)", f, score, c[Survived]))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "per file    %s\n", strings.Join(parts, ", "))
	}
}

// writeList prints the mutants with status st as
// file:line:col  function  operator  "original" -> "mutated".
func (r *Report) writeList(w io.Writer, st Status, title string) {
	var lines []string
	for _, o := range r.Outcomes {
		if o.Status != st {
			continue
		}
		m := o.Mutant
		line := fmt.Sprintf("  %s:%d:%d  %s  %s  %q -> %q", filepath.Join(r.Dir, m.File), m.Line, m.Col, m.Func, m.Op, m.Original, m.Mutated)
		if o.Reason != "" {
			line += "\n      " + o.Reason
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (%d):\n%s\n", title, len(lines), strings.Join(lines, "\n"))
}

func writeEntries(w io.Writer, title string, es []Argued) {
	if len(es) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (%d):\n", title, len(es))
	for _, e := range es {
		fmt.Fprintf(w, "  line %d: %s\n", e.Line, e.ID)
	}
}

// jsonReport is the machine-readable form of a Report.
type jsonReport struct {
	Package     string         `json:"package"`
	Killer      []string       `json:"killer"`
	Reached     int            `json:"statements_reached"`
	Statements  int            `json:"statements"`
	Baseline    float64        `json:"baseline_seconds"`
	SchemaBuild float64        `json:"schema_build_seconds"`
	Timeout     float64        `json:"timeout_seconds"`
	Elapsed     float64        `json:"elapsed_seconds"`
	Jobs        int            `json:"jobs"`
	Enumerated  int            `json:"enumerated"`
	Counts      map[string]int `json:"counts"`
	Score       float64        `json:"score"`
	ScoreAll    float64        `json:"score_with_argued_as_survived"`
	Mutants     []jsonMutant   `json:"mutants"`
	Stale       []string       `json:"stale_equivalents"`
	Misjudged   []string       `json:"equivalents_killed"`
	Unexplained int            `json:"unexplained_survivors"`
}

type jsonMutant struct {
	ID       string  `json:"id"`
	File     string  `json:"file"`
	Line     int     `json:"line"`
	Col      int     `json:"col"`
	Func     string  `json:"function"`
	Operator string  `json:"operator"`
	Original string  `json:"original"`
	Mutated  string  `json:"mutated"`
	Status   string  `json:"status"`
	Detail   string  `json:"detail,omitempty"`
	Reason   string  `json:"reason,omitempty"`
	Build    float64 `json:"build_seconds,omitempty"`
	Run      float64 `json:"run_seconds,omitempty"`
	Schema   bool    `json:"in_schema,omitempty"`
}

// WriteJSON writes the report to path as JSON.
func (r *Report) WriteJSON(path string) error {
	all, _ := r.Tally()
	j := jsonReport{
		Package: r.ImportPath, Killer: r.Killer, Reached: r.Reached, Statements: r.Statements,
		Baseline: r.Baseline.Seconds(), SchemaBuild: r.Schema.Seconds(), Timeout: r.Timeout.Seconds(), Elapsed: r.Elapsed.Seconds(),
		Jobs: r.Jobs, Enumerated: r.Enumerated, Counts: map[string]int{}, Stale: []string{}, Misjudged: []string{},
	}
	j.Score, j.ScoreAll = all.Score()
	j.Unexplained = r.Unexplained()
	for st, n := range all {
		j.Counts[Status(st).String()] = n
	}
	for _, o := range r.Outcomes {
		m := o.Mutant
		j.Mutants = append(j.Mutants, jsonMutant{
			ID: m.ID(), File: filepath.Join(r.Dir, m.File), Line: m.Line, Col: m.Col, Func: m.Func, Operator: m.Op.String(),
			Original: m.Original, Mutated: m.Mutated, Status: o.Status.String(), Detail: o.Detail, Reason: o.Reason,
			Build: o.Build.Seconds(), Run: o.Run.Seconds(), Schema: o.Schema,
		})
	}
	for _, e := range r.Stale {
		j.Stale = append(j.Stale, e.ID)
	}
	for _, e := range r.Misjudged {
		j.Misjudged = append(j.Misjudged, e.ID)
	}
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
