package sim

import (
	"strconv"
	"strings"
	"time"
)

// Flags returns the CLI flags that reproduce cfg: only those that differ
// from DefaultConfig, in a fixed order.
func (c Config) Flags() []string {
	d := DefaultConfig()
	var out []string
	add := func(name, value string) { out = append(out, "-"+name, value) }
	if c.Variant != "" && c.Variant != d.Variant {
		add("variant", c.Variant)
	}
	if c.Backend != nil {
		add("backend", c.Backend.Name()) // never the -db URL: it may hold a password ($DURASIM_PG_URL is read instead)
	}
	if c.Workers != d.Workers {
		add("workers", strconv.Itoa(int(c.Workers)))
	}
	if c.Docs != d.Docs {
		add("docs", strconv.Itoa(int(c.Docs)))
	}
	if len(c.Only) > 0 {
		add("only", joinInts(c.Only))
	}
	if c.Tenants != d.Tenants {
		add("tenants", strconv.Itoa(int(c.Tenants)))
	}
	if c.Model.Lease != d.Model.Lease {
		add("lease", time.Duration(c.Model.Lease).String())
	}
	if c.Model.HeartbeatEvery != d.Model.HeartbeatEvery {
		add("heartbeat", time.Duration(c.Model.HeartbeatEvery).String())
	}
	if c.Model.MaxAttempts != d.Model.MaxAttempts {
		add("max-attempts", strconv.Itoa(int(c.Model.MaxAttempts)))
	}
	if c.Model.Retry.Strategy != d.Model.Retry.Strategy {
		add("backoff", c.Model.Retry.Strategy.String())
	}
	if c.Model.Retry.Base != d.Model.Retry.Base {
		add("backoff-base", time.Duration(c.Model.Retry.Base).String())
	}
	if c.Model.Retry.Cap != d.Model.Retry.Cap {
		add("backoff-cap", time.Duration(c.Model.Retry.Cap).String())
	}
	if c.Model.Breaker != d.Model.Breaker {
		add("breaker", BreakerSpec(c.Model.Breaker))
	}
	if c.ArrivalGap != d.ArrivalGap {
		add("arrival-gap", time.Duration(c.ArrivalGap).String())
	}
	if c.Model.Retention != d.Model.Retention {
		add("retention", time.Duration(c.Model.Retention).String())
	}
	if c.Model.Reprocess.Capacity != d.Model.Reprocess.Capacity {
		add("reprocess-limit", strconv.Itoa(int(c.Model.Reprocess.Capacity)))
	}
	if c.Model.Deadline != d.Model.Deadline {
		add("deadline", time.Duration(c.Model.Deadline).String())
	}
	if c.Model.TokenBudget != d.Model.TokenBudget {
		add("token-budget", strconv.FormatInt(c.Model.TokenBudget, 10))
	}
	if c.Model.Ordered {
		out = append(out, "-ordered")
	}
	if c.ProbeStatus {
		out = append(out, "-probe-status")
	}
	if c.TryCancelled {
		out = append(out, "-try-cancelled")
	}
	if c.EdgeVersions {
		out = append(out, "-edge-versions")
	}
	if len(c.Resubmit) > 0 {
		add("resubmit", joinInts(c.Resubmit))
	}
	if !c.Swarm {
		out = append(out, "-swarm=false")
	}
	if c.Plan.Len() > 0 {
		add("plan", c.Plan.OneLine())
	}
	return out
}

// Command is the shell command that runs verb (run, replay, shrink) on
// seed with cfg.
func Command(verb string, cfg Config, seed uint64) string {
	args := append([]string{"go", "run", "./cmd/durasim", verb, "-seed", strconv.FormatUint(seed, 10)}, cfg.Flags()...)
	for i, a := range args {
		if strings.ContainsAny(a, " ;*'\"$") {
			args[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(args, " ")
}

func joinInts(xs []int32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(int(x))
	}
	return strings.Join(parts, ",")
}
