package invariants

import (
	"fmt"

	"github.com/durasim/durasim/model"
)

// The store checks over the final state's rows (and the operations that
// name rows): duplicates, lost jobs, unpublished and orphaned events.

// checkNoDuplicates: one effect per event and per (key, stage), one
// outbox row per (key, stage), one ledger entry per event, and no two
// deliveries of one event both recorded as applied.
func checkNoDuplicates(ix *storeIndex, v *storeViolations) {
	effByEvent := map[model.EventID]int{}
	effByStage := map[string]int{}
	for _, e := range ix.st.Effects {
		effByEvent[e.EventID]++
		effByStage[model.StageKey(e.Key, e.Stage)]++
	}
	rowByStage := map[string]int{}
	for _, r := range ix.st.Outbox {
		rowByStage[model.StageKey(r.Key, r.Stage)]++
	}
	for _, ev := range sortedKeys(effByEvent) {
		if n := effByEvent[ev]; n > 1 {
			v.add(0, fmt.Sprintf("event %v has %d effects", ev, n))
		}
	}
	for _, k := range sortedKeys(effByStage) {
		if n := effByStage[k]; n > 1 {
			v.add(0, fmt.Sprintf("%s has %d effects", k, n))
		}
	}
	for _, k := range sortedKeys(rowByStage) {
		if n := rowByStage[k]; n > 1 {
			v.add(0, fmt.Sprintf("%s was committed %d times (outbox rows)", k, n))
		}
	}
	for _, ev := range sortedKeys(ix.ledger) {
		if n := ix.ledger[ev]; n > 1 {
			v.add(0, fmt.Sprintf("event %v is %d times in the ledger", ev, n))
		}
	}
	applied := map[model.EventID]int{} // → position of the first apply
	for i := range ix.ops {
		o := &ix.ops[i]
		if o.Kind != OpApply || !o.Applied {
			continue
		}
		if p, ok := applied[o.Event]; ok {
			v.add(0, fmt.Sprintf("event %v applied%s and again%s", o.Event, who(&ix.ops[p]), who(o)), &ix.ops[p], o)
			continue
		}
		applied[o.Event] = i
	}
}

// checkNoLostJobs: every enqueue is one job, and (where every enqueue is
// recorded) every job without an origin was enqueued; a succeeded job
// has every stage's result; a dead job is in the DLQ; a DLQ row names a
// job, dead or redriven since when the dead-letter is atomic. Jobs still
// live are the liveness check's.
func checkNoLostJobs(ix *storeIndex, v *storeViolations) {
	enq := map[string]bool{}
	for i := range ix.ops {
		o := &ix.ops[i]
		if o.Kind != OpEnqueue || enq[o.Key] {
			continue
		}
		enq[o.Key] = true
		if n := len(ix.byKey[o.Key]); n != 1 {
			v.add(o.Job, fmt.Sprintf("key %s enqueued%s has %d jobs", o.Key, who(o), n), o)
		}
	}
	for i := range ix.st.Jobs {
		j := &ix.st.Jobs[i]
		if j.Origin == 0 && !enq[j.Key] && ix.feed.recorded(OpEnqueue) {
			v.add(j.ID, fmt.Sprintf("job %v (%s) was never enqueued", j.ID, j.Key))
		}
		switch j.State {
		case model.Succeeded:
			for _, s := range model.Stages() {
				if _, ok := ix.results[model.StageKey(j.Key, s)]; !ok {
					v.add(j.ID, fmt.Sprintf("job %v succeeded without a %s result", j.ID, s))
				}
			}
		case model.Dead:
			if _, ok := ix.dlq[j.ID]; !ok {
				v.add(j.ID, fmt.Sprintf("job %v is dead but not in the DLQ", j.ID))
			}
		}
	}
	for _, d := range ix.st.DLQ {
		j, ok := ix.jobs[d.Job]
		switch {
		case !ok:
			v.add(d.Job, fmt.Sprintf("DLQ holds job %v, which does not exist", d.Job))
		case ix.feed.AtomicDeadLetter && j.State != model.Dead && j.RedriveCount == 0:
			v.add(d.Job, fmt.Sprintf("DLQ holds job %v, which is %s and was never redriven", d.Job, j.State))
		}
	}
}

// checkNoUnpublished: a row marked published has a broker message, an
// event in the ledger has its effect; and once drained every row is
// published and applied.
func checkNoUnpublished(ix *storeIndex, v *storeViolations) {
	onBroker := map[model.EventID]int{}
	for _, m := range ix.st.Broker {
		onBroker[m.Event]++
	}
	effects := map[model.EventID]int{}
	for _, e := range ix.st.Effects {
		effects[e.EventID]++
	}
	for _, r := range ix.st.Outbox {
		switch {
		case !r.Published && ix.feed.Drained:
			v.add(r.Job, fmt.Sprintf("event %v (%s) never marked published", r.EventID, model.StageKey(r.Key, r.Stage)))
		case r.Published && onBroker[r.EventID] == 0:
			v.add(r.Job, fmt.Sprintf("event %v marked published but no broker message", r.EventID))
		case ix.ledger[r.EventID] == 0 && ix.feed.Drained:
			v.add(r.Job, fmt.Sprintf("event %v published but never applied", r.EventID))
		case ix.ledger[r.EventID] > 0 && effects[r.EventID] == 0:
			v.add(r.Job, fmt.Sprintf("event %v in the ledger without its effect", r.EventID))
		}
	}
}

// checkNoOrphans: every outbox row is its stage's result and every result
// has its row (a commit split in two transactions leaves a result without
// one); every message, ledger entry and effect is a row's, with the same
// key and stage; no recorded publish or apply names an event never
// committed.
func checkNoOrphans(ix *storeIndex, v *storeViolations) {
	for _, r := range ix.st.Outbox {
		sk := model.StageKey(r.Key, r.Stage)
		if res, ok := ix.results[sk]; !ok || res.EventID != r.EventID {
			v.add(r.Job, fmt.Sprintf("event %v has no result row for %s", r.EventID, sk))
		}
		if j, ok := ix.jobs[r.Job]; !ok || j.Key != r.Key {
			v.add(r.Job, fmt.Sprintf("event %v names job %v, which does not hold key %s", r.EventID, r.Job, r.Key))
		}
	}
	for _, res := range ix.st.Results {
		if r, ok := ix.rows[res.EventID]; !ok || r.Key != res.Key || r.Stage != res.Stage {
			v.add(res.Job, fmt.Sprintf("result %s names event %v, which is not its outbox row", model.StageKey(res.Key, res.Stage), res.EventID))
		}
	}
	for _, m := range ix.st.Broker {
		if _, ok := ix.rows[m.Event]; !ok {
			v.add(0, fmt.Sprintf("broker message %d carries event %v, never committed", m.ID, m.Event))
		}
	}
	for _, ev := range sortedKeys(ix.ledger) {
		if _, ok := ix.rows[ev]; !ok {
			v.add(0, fmt.Sprintf("ledger holds event %v, never committed", ev))
		}
	}
	for _, e := range ix.st.Effects {
		r, ok := ix.rows[e.EventID]
		if !ok || r.Key != e.Key || r.Stage != e.Stage || r.Job != e.Job {
			v.add(e.Job, fmt.Sprintf("effect of event %v (%s) matches no committed row", e.EventID, model.StageKey(e.Key, e.Stage)))
		}
	}
	for i := range ix.ops {
		o := &ix.ops[i]
		if o.Kind == OpPublish || o.Kind == OpApply {
			if _, ok := ix.rows[o.Event]; !ok {
				v.add(0, fmt.Sprintf("%s%s of event %v, never committed", o.Kind, who(o), o.Event), o)
			}
		}
	}
}
