package targetsim

import (
	"fmt"
	"io"
)

// Feature is one feature of a queue the workload reaches: how a run's
// counts show it.
type Feature struct {
	Name string
	What string
	in   func(Counts) int
}

// Features are the features a sweep's reach table counts, in its order:
// the worker's paths that faults aim at, then the operator's and other
// writers' calls (target.Operator).
var Features = []Feature{
	{"outside-cancel", "an operator cancels a running job from outside (River's JobCancel)", func(c Counts) int { return c.OutsideCancels }},
	{"delete", "an operator deletes a finished job (JobDelete)", func(c Counts) int { return c.Deletes }},
	{"metadata", "an operator updates a job's metadata (JobUpdate)", func(c Counts) int { return c.MetadataUpdates }},
	{"job-timeout", "a handler outlives its job's context (the client's JobTimeout)", func(c Counts) int { return c.Timeouts }},
	{"worker-timeout", "a worker sets its own job timeout (River's Worker.Timeout)", func(c Counts) int { return c.WorkerTimeouts }},
	{"no-timeout", "a worker sets no timeout at all (Worker.Timeout -1)", func(c Counts) int { return c.NoTimeouts }},
	{"long-error-history", "a live job's next attempt carries 30 errors more (another writer wrote them)", func(c Counts) int { return c.LongErrors }},
	{"out-of-band", "another writer changes a row under the queue", func(c Counts) int { return c.OutOfBand }},
	{"batch-insert", "a batch insert repeats a unique key", func(c Counts) int { return c.BatchInserts }},
	{"rescue", "the rescuer takes a stuck job back", func(c Counts) int { return c.Rescued }},
	{"operator-retry", "an operator retries a failed job (JobRetry)", func(c Counts) int { return c.Retries }},
	{"zombie-write", "a worker writes after another fetched its job", func(c Counts) int { return c.ZombieWrites }},
}

// Reach is, per feature, the seeds that reached it and how often.
type Reach struct {
	Feature string `json:"feature"`
	Seeds   int    `json:"seeds"`
	Times   int    `json:"times"`
}

// addReach folds one seed's counts into the summary's reach table.
func (s *Summary) addReach(c Counts) {
	if s.Reach == nil {
		s.Reach = make([]Reach, len(Features))
		for i, f := range Features {
			s.Reach[i].Feature = f.Name
		}
	}
	for i, f := range Features {
		if n := f.in(c); n > 0 {
			s.Reach[i].Seeds++
			s.Reach[i].Times += n
		}
	}
}

// Unreached lists the features no seed reached.
func (s *Summary) Unreached() []string {
	var out []string
	for _, r := range s.Reach {
		if r.Seeds == 0 {
			out = append(out, r.Feature)
		}
	}
	return out
}

// PrintReach writes the reach table: per feature, the seeds that reached
// it of the seeds run, and how often.
func (s *Summary) PrintReach(w io.Writer) {
	fmt.Fprintf(w, "reach       %d seeds (a feature reached by no seed: unreached)\n", s.Seeds)
	fmt.Fprintf(w, "  %-20s %8s %8s  %s\n", "feature", "seeds", "times", "what")
	for i, r := range s.Reach {
		mark := ""
		if r.Seeds == 0 {
			mark = "  UNREACHED"
		}
		fmt.Fprintf(w, "  %-20s %8d %8d  %s%s\n", r.Feature, r.Seeds, r.Times, Features[i].What, mark)
	}
}
