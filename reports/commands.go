package reports

import (
	"reflect"
	"slices"

	"github.com/durasim/durasim/sim"
)

// flagSettings are the settings sim.Command prints as command-line flags
// (sim.Config.Flags), by their path in sim.Config. A test checks the list
// against Flags itself, field by field, so it cannot drift.
var flagSettings = []string{
	"Workers", "Docs", "Tenants", "Only", "Resubmit", "Variant", "ProbeStatus", "TryCancelled", "EdgeVersions", "WorkflowEvery",
	"Model.Lease", "Model.HeartbeatEvery", "Model.MaxAttempts", "Model.Retry.Strategy", "Model.Ordered",
	"Model.Retention", "Model.Reprocess.Capacity", "Model.TokenBudget", "Model.Deadline",
	"Model.Retry.Base", "Model.Retry.Cap", "Model.Breaker",
	"Plan", "Swarm", "ArrivalGap", "Backend",
}

// unflagged are settings that change how a run is kept, not what it does.
var unflagged = []string{"KeepTrace", "StopOnViolation"}

// groups are compared as one setting: a report names the circuit breaker,
// not its five numbers.
var groups = []string{"Plan", "Model.Breaker", "Model.Redrive", "Backend"}

// diffSettings lists the settings (paths in sim.Config) in which a and b
// differ, in field order.
func diffSettings(a, b sim.Config) []string {
	var out []string
	walkDiff(reflect.ValueOf(a), reflect.ValueOf(b), "", &out)
	return out
}

func walkDiff(a, b reflect.Value, path string, out *[]string) {
	if a.Kind() != reflect.Struct || slices.Contains(groups, path) {
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			*out = append(*out, path)
		}
		return
	}
	for i := 0; i < a.NumField(); i++ {
		f := a.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		walkDiff(a.Field(i), b.Field(i), p, out)
	}
}

// Unexposed lists the settings of c that differ from sim.DefaultConfig and
// that no command-line flag sets: an arm with any cannot be replayed from
// a printed command, only with -scenario.
func Unexposed(c sim.Config) []string {
	var out []string
	for _, s := range diffSettings(c, sim.DefaultConfig()) {
		if !slices.Contains(flagSettings, s) && !slices.Contains(unflagged, s) {
			out = append(out, s)
		}
	}
	return out
}

// Replayable reports whether c can be rebuilt from the command-line flags
// sim.Command prints (c.Flags()): every setting it has is either a flag or
// the default. cmd/durasim's test checks the other direction, that the
// printed flags parse back to the same config.
func Replayable(c sim.Config) bool { return len(Unexposed(c)) == 0 }

// settingName is a setting's name for readers.
func settingName(l Lang, path string) string {
	switch path {
	case "Model.Breaker":
		return l.t("o disjuntor", "the circuit breaker")
	case "Model.Retry.Base":
		return l.t("a base do backoff", "the backoff base")
	case "Model.Retry.Cap":
		return l.t("o teto do backoff", "the backoff cap")
	case "Model.Deadline":
		return l.t("o deadline", "the deadline")
	case "Model.TokenBudget":
		return l.t("o orçamento de tokens", "the token budget")
	case "Model.Redrive":
		return l.t("o limite de redrive", "the redrive limit")
	case "Model.Reprocess":
		return l.t("o limite de reprocesso", "the reprocess limit")
	case "MaxFaults":
		return l.t("o máximo de falhas do swarm", "the swarm's fault ceiling")
	case "DrainLimit":
		return l.t("o prazo para drenar", "the drain limit")
	}
	return code(path)
}
