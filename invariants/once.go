package invariants

import (
	"fmt"

	"github.com/durasim/durasim/model"
)

// Exactly-once effect: at most one applied effect per (key, stage) and per
// (job, stage) — the latter catches a redrive under a fresh key redoing a
// stage — and, once the run drained, exactly one per stage of every
// succeeded job.

// stageKey names one stage's effect: the key and the stage, without
// building key + ":" + stage.
type stageKey struct {
	key   string
	stage model.Stage
}

// onceState is the exactly-once checker's part of a job.
type onceState struct {
	first [model.StageDone]uint64 // the first applied effect of each stage
	count [model.StageDone]uint8  // applied effects of each stage, saturating
}

// applyOnce checks an applied effect against the earlier ones of its key
// and of its job.
func (s *Suite) applyOnce(e *model.Event, j *job) {
	if !e.OK {
		return
	}
	s.g.applies = append(s.g.applies, applyRec{event: e.EventID, at: e.At, seq: e.Seq})
	if !e.HasStage {
		return
	}
	o := s.ownerOf(e.Key, j) // one lookup serves the check and the update
	first, dup := s.firstApplied(o, e.Key, e.Stage)
	if dup {
		s.report(ExactlyOnce, e.Job, fmt.Sprintf("%v stage=%v applied twice under key %s", e.Job, e.Stage, e.Key), first, e.Seq)
	} else {
		s.setApplied(o, e.Key, e.Stage, e.Seq)
	}
	if j == nil || e.Stage >= model.StageDone {
		return
	}
	once := &j.once
	if once.first[e.Stage] == 0 {
		once.first[e.Stage] = e.Seq
	} else if !dup {
		s.report(ExactlyOnce, e.Job, fmt.Sprintf("%v stage=%v applied twice, the second time under key %s", e.Job, e.Stage, e.Key), once.first[e.Stage], e.Seq)
	}
	if once.count[e.Stage] < 255 {
		once.count[e.Stage]++
	}
}

// firstApplied returns the first applied effect of (key, stage): kept with
// the key's owner o when the key has one, else in s.applied.
func (s *Suite) firstApplied(o *owner, key string, st model.Stage) (seq uint64, ok bool) {
	if st < model.StageDone && o != nil && o.applied[st] != 0 {
		return o.applied[st], true
	}
	if len(s.applied) == 0 {
		return 0, false
	}
	seq, ok = s.applied[stageKey{key, st}]
	return seq, ok
}

// setApplied records the first applied effect of (key, stage). A zero seq
// (a hand-written history may have one) would read as "none" in the
// owner's array, so it goes to the map.
func (s *Suite) setApplied(o *owner, key string, st model.Stage, seq uint64) {
	if st < model.StageDone && seq != 0 && o != nil {
		o.applied[st] = seq
		return
	}
	s.applied[stageKey{key, st}] = seq
}

// finishOnce checks, after a drained run, that every succeeded job has
// exactly one applied effect per pipeline stage.
func (s *Suite) finishOnce(v *finalView, out *violations) {
	if !s.drained {
		return
	}
	for id := model.JobID(1); int(id) < len(v.state); id++ {
		if v.state[id] != model.Succeeded || !v.known[id] {
			continue
		}
		for _, st := range model.Stages() {
			s.checkEffects(v, id, st, out)
		}
	}
}

func (s *Suite) checkEffects(v *finalView, id model.JobID, st model.Stage, out *violations) {
	n := v.effects[id][st]
	var end, first uint64
	var seen uint8
	if j := s.known(id); j != nil {
		end, first, seen = j.endSeq, j.once.first[st], j.once.count[st]
	}
	switch {
	case n == 0:
		out.add(ExactlyOnce, id, fmt.Sprintf("%v succeeded but stage=%v has no applied effect", id, st), end)
	case n > 1 && seen < 2: // with two applies in the history it was reported already
		out.add(ExactlyOnce, id, fmt.Sprintf("%v stage=%v has %d applied effects in the final state", id, st, n), end, first)
	}
}
