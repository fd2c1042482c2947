package reports

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/durasim/durasim/asynqchaos"
	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
)

// asynq in the side-by-side report: asynq runs only as real processes on
// a redis-server (asynqchaos), which `make report` does not start, so
// the report reads a recording of such runs, one per handler design, from
// a file it names (AsynqFile) and says when it was recorded. `durasim
// report -record-asynq FILE` (make asynq-record) writes it; every asynq
// figure of the report comes from it.

// AsynqFile is the recording the side-by-side report reads, as the
// repository names it.
const AsynqFile = "reports/data/asynq-chaos.json"

//go:embed data/asynq-chaos.json
var asynqRecording []byte

// AsynqRecord is a recording of asynq chaos runs: when, by which command,
// on which asynq release, and one run per handler design, all with one
// configuration but the design.
type AsynqRecord struct {
	Recorded string     `json:"recorded"` // UTC, RFC 3339, to the second
	Command  string     `json:"command"`
	Asynq    string     `json:"asynq"` // the release the recording binary was built with
	Runs     []AsynqRun `json:"runs"`  // in asynqchaos.Designs order
}

// AsynqRun is one asynqchaos run's report, as figures: its settings, what
// the supervisor did, what the histories, asynq's Inspector and the
// database said, and each check's violations.
type AsynqRun struct {
	Design       string         `json:"design"`
	Workers      int            `json:"workers"`
	Steady       int            `json:"steady"`
	Concurrency  int            `json:"concurrency"`
	MaxAttempts  int            `json:"max_attempts"`
	JobTimeoutMS int64          `json:"job_timeout_ms"`
	RetryDelayMS int64          `json:"retry_delay_ms"`
	TargetKills  int            `json:"target_kills"`
	TZ           string         `json:"tz"`
	Zones        []string       `json:"zones"`
	ClientSkewMS int64          `json:"client_skew_ms"`
	ScheduleInMS int64          `json:"schedule_in_ms"`
	Points       []string       `json:"points"`
	Kills        map[string]int `json:"kills"` // per point
	Restarts     int            `json:"restarts"`
	HardStops    int            `json:"hard_stops"`
	Pauses       int            `json:"pauses"`
	Takeovers    int            `json:"takeovers"`
	Inserts      int            `json:"inserts"`
	Skipped      int            `json:"skipped"`
	Scheduled    int            `json:"scheduled"`
	Jobs         map[string]int `json:"jobs"` // tasks per state, asynq's Inspector
	Effects      int            `json:"effects"`
	Completed    int            `json:"completed_docs"`
	Duplicate    int            `json:"duplicate_docs"`
	Missing      int            `json:"missing_docs"`
	Exposures    int            `json:"exposures"`
	ZombieWrites int            `json:"zombie_writes"`
	KillPhaseMS  int64          `json:"kill_phase_ms"`
	ElapsedMS    int64          `json:"elapsed_ms"`
	Drained      bool           `json:"drained"`
	Checked      []string       `json:"checked"`
	Violations   map[string]int `json:"violations"` // per check that failed
}

// RecordAsynqRun turns an asynqchaos run (its configuration and its
// report) into a recorded run.
func RecordAsynqRun(c asynqchaos.Config, r *asynqchaos.Report) AsynqRun {
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	run := AsynqRun{Design: r.Design.String(), Workers: r.Workers, Steady: r.Steady, Concurrency: r.Concurrency, MaxAttempts: c.MaxAttempts,
		JobTimeoutMS: ms(c.JobTimeout), RetryDelayMS: ms(c.RetryDelay), TargetKills: c.Kills, TZ: c.TZ, Zones: r.Zones,
		ClientSkewMS: ms(c.ClientSkew), ScheduleInMS: ms(c.ScheduleIn), Kills: map[string]int{}, Restarts: r.Restarts, HardStops: r.HardStops,
		Pauses: r.Pauses, Takeovers: r.Takeovers, Inserts: r.Inserts, Skipped: r.Skipped, Scheduled: r.Scheduled, Jobs: map[string]int{},
		Effects: r.Effects, Completed: r.CompletedDocs, Duplicate: r.DuplicateDocs, Missing: r.MissingDocs, Exposures: len(r.Exposures),
		ZombieWrites: r.ZombieWrites, KillPhaseMS: ms(r.KillPhase), ElapsedMS: ms(r.Elapsed), Drained: r.Drained, Checked: r.Checked,
		Violations: map[string]int{}}
	for _, p := range r.Points {
		run.Points = append(run.Points, p.String())
		run.Kills[p.String()] = r.Kills[p]
	}
	for _, st := range target.States() {
		if n := r.Jobs[st]; n > 0 {
			run.Jobs[st.String()] = n
		}
	}
	for _, v := range r.Violations {
		run.Violations[v.Invariant]++
	}
	return run
}

// ParseAsynqRecord reads a recording and checks that it has one run per
// asynq handler design, in their order, each with its figures.
func ParseAsynqRecord(data []byte) (*AsynqRecord, error) {
	var rec AsynqRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", AsynqFile, err)
	}
	if _, err := time.Parse(time.RFC3339, rec.Recorded); err != nil {
		return nil, fmt.Errorf("%s: recorded %q is not an RFC 3339 time", AsynqFile, rec.Recorded)
	}
	designs := asynqchaos.Designs()
	if len(rec.Runs) != len(designs) {
		return nil, fmt.Errorf("%s: %d runs, want one per asynq design (%d)", AsynqFile, len(rec.Runs), len(designs))
	}
	for i, d := range designs {
		r := rec.Runs[i]
		if r.Design != d.String() {
			return nil, fmt.Errorf("%s: run %d is %q, want %s", AsynqFile, i+1, r.Design, d)
		}
		if len(r.Checked) == 0 || len(r.Points) == 0 {
			return nil, fmt.Errorf("%s: run %s has no checks or no kill points", AsynqFile, d)
		}
	}
	return &rec, nil
}

// recordedAsynq is the committed recording.
func recordedAsynq() (*AsynqRecord, error) { return ParseAsynqRecord(asynqRecording) }

// design is a run's design.
func (r AsynqRun) design() targetsim.Design {
	d, _ := targetsim.LookupDesign(r.Design) // ParseAsynqRecord checked it
	return d
}

// kills is the run's kills at every point.
func (r AsynqRun) kills() int {
	n := 0
	for _, p := range r.Points {
		n += r.Kills[p]
	}
	return n
}

// handlerCheck is the first check of the handler's effects the run
// violated, in the oracle's order ("" if none).
func (r AsynqRun) handlerCheck() string {
	for _, name := range r.Checked {
		if r.Violations[name] > 0 && invariants.TargetHandlerCheck(name) {
			return name
		}
	}
	return ""
}

// queueFailed are the checks of asynq's own guarantees the run violated.
func (r AsynqRun) queueFailed() []string {
	var out []string
	for _, name := range r.Checked {
		if r.Violations[name] > 0 && !invariants.TargetHandlerCheck(name) {
			out = append(out, name)
		}
	}
	return out
}

// policy is asynq's declared rules under the run's settings.
func (r AsynqRun) policy() target.Policy {
	c := asynqchaos.DefaultConfig()
	c.JobTimeout, c.RetryDelay = time.Duration(r.JobTimeoutMS)*time.Millisecond, time.Duration(r.RetryDelayMS)*time.Millisecond
	return asynqchaos.Rules(c)
}

// recordedDate is the recording's day and time as the report prints it.
func (rec *AsynqRecord) recordedDate() string {
	t, _ := time.Parse(time.RFC3339, rec.Recorded)
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// asynqDesigns is asynq's design names, for the designs table.
func asynqHas(d targetsim.Design) bool { return slices.Contains(asynqchaos.Designs(), d) }

// zoneList is the zones the children recorded.
func (r AsynqRun) zoneList(l Lang) string {
	if len(r.Zones) == 0 {
		return l.t("nenhuma registrada", "none recorded")
	}
	return strings.Join(r.Zones, ", ")
}

// jsonOf is a recording as the file holds it.
func jsonOf(rec AsynqRecord) ([]byte, error) { return json.MarshalIndent(rec, "", "  ") }
