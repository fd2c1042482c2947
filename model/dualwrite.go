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
