package model

// DualWrite is the first half of seed 000's naiveDualWrite: the stage's
// result is written to the database with no outbox row, so nothing durable
// remembers that an event is owed.
func (s *System) DualWrite(actor Actor, id JobID, key string, st Stage) {
	j := s.job(id)
	k := s.outbox.keyFor(key, j.Tenant, id)
	if !k.has(st) {
		k.set(st, stageResult{hash: j.PayloadHash})
	}
	e := jobEvent(s.event(EvDBWrite, actor), j)
	e.Key, e.Stage, e.HasStage, e.OK = key, st, true, true
	s.emit(e)
}

// PublishDirect is its second half: the event goes straight to the broker.
// The row it creates exists only so the consumer can read the event; it is
// born published, and nothing would have republished it after a crash.
func (s *System) PublishDirect(actor Actor, key string, st Stage) (int64, bool) {
	k, ok := s.outbox.lookup(key)
	if !ok || !k.has(st) {
		return 0, false
	}
	res := &k.stages[st]
	if res.event == 0 {
		now := s.Now()
		res.event = s.outbox.add(OutboxRow{
			Key: key, Stage: st, Tenant: s.outbox.tenants[k.tenant], Job: k.job,
			CommittedAt: now, Published: true, PublishedAt: now,
		})
	}
	return s.Publish(actor, res.event), true
}

// appendUnevented appends the results written with no event (the dual
// write's, until PublishDirect gives one its row), in the order their
// keys were first written: Results lists them before the others.
func (o *Outbox) appendUnevented(out []Result) []Result {
	var names []string // key by entry
	for i := range o.keys.len() {
		k := o.keys.at(i)
		for st := StageIngest; st < StageDone; st++ {
			if !k.has(st) || k.stages[st].event != 0 {
				continue
			}
			if names == nil {
				names = make([]string, o.keys.len())
				//det:sorted (each key to its own slot)
				for key, j := range o.results {
					names[j] = key
				}
			}
			out = append(out, o.result(k, names[i], st))
		}
	}
	return out
}
