package model

// Message is one broker message: an outbox event in flight.
type Message struct {
	ID          int64
	Event       EventID
	PublishedAt Time
	Deliveries  int32
	Acked       bool
}

// Broker delivers at least once: a message stays unacked until the consumer
// acks it, and the simulator may deliver it again, late or out of order.
type Broker struct {
	msgs    pages[message] // message id-1
	unacked int
}

// message is a [Message] as the broker stores it: its id is its position.
type message struct {
	event       EventID
	publishedAt Time
	deliveries  int32
	acked       bool
}

// Publish hands an outbox event to the broker and returns the message id.
func (s *System) Publish(actor Actor, id EventID) int64 {
	s.broker.msgs.push(message{event: id, publishedAt: s.Now()})
	s.broker.unacked++
	msg := int64(s.broker.msgs.len())
	e := s.event(EvPublish, actor)
	e.EventID, e.N, e.OK = id, msg, true
	if id >= 1 && int(id) <= s.outbox.rows.len() { // (the row's fields read in place, not copied out)
		r := s.outbox.rows.at(int(id - 1))
		e.Job, e.Key, e.Tenant, e.Stage, e.HasStage = r.job, r.key, s.outbox.tenants[r.tenant], r.stage, true
	}
	s.emit(e)
	return msg
}

// Message returns a broker message by id.
func (s *System) Message(id int64) (Message, bool) {
	if id < 1 || int(id) > s.broker.msgs.len() {
		return Message{}, false
	}
	m := s.broker.msgs.at(int(id - 1))
	return Message{ID: id, Event: m.event, PublishedAt: m.publishedAt, Deliveries: m.deliveries, Acked: m.acked}, true
}

// Messages is how many messages were ever published.
func (s *System) Messages() int { return s.broker.msgs.len() }

// Unacked is how many messages the consumer has not acked.
func (s *System) Unacked() int { return s.broker.unacked }

// AckMessage records the consumer's ack of a message.
func (s *System) AckMessage(id int64) {
	if m := s.broker.msgs.at(int(id - 1)); !m.acked {
		m.acked = true
		s.broker.unacked--
	}
}

// Effect is the business effect of one stage: for the review stage, the
// review entry an operator sees (seed 000's opening incident counts these).
type Effect struct {
	EventID EventID
	Key     string
	Stage   Stage
	Tenant  string
	Job     JobID
	At      Time
}

// Consumer applies effects and keeps the ledger of event ids it has seen;
// both are written in one atomic step.
type Consumer struct {
	seen    []uint64            // bitset of event ids applied
	effects pages[effectRecord] // in order; the rest is in the event's row
}

// effectRecord is one applied effect: which event, and when.
type effectRecord struct {
	event EventID
	at    Time
}

// seenEvent reports whether the consumer's ledger holds event id.
func (c *Consumer) seenEvent(id EventID) bool {
	w := int(id) / 64
	return w < len(c.seen) && c.seen[w]&(1<<(uint(id)%64)) != 0
}

func (c *Consumer) markSeen(id EventID) {
	w := int(id) / 64
	for w >= len(c.seen) {
		c.seen = append(c.seen, 0)
	}
	c.seen[w] |= 1 << (uint(id) % 64)
}

// ApplyResult is seed 000's { applied, reason }.
type ApplyResult struct {
	Applied bool
	Reason  Code // CodeDuplicateEvent when skipped
}

// Deliver applies message msg's effect. A second delivery of an event id
// returns {applied: false, reason: duplicate_event} (seed 000's exercise).
func (s *System) Deliver(actor Actor, msg int64) ApplyResult {
	m := s.broker.msgs.at(int(msg - 1))
	m.deliveries++
	deliveries := m.deliveries
	row := s.outbox.row(m.event)
	res := s.design.Apply(s, row)
	e := s.event(EvApply, actor)
	e.EventID, e.Job, e.Key, e.Tenant, e.Stage, e.HasStage = row.EventID, row.Job, row.Key, row.Tenant, row.Stage, true
	e.N, e.N2 = int64(deliveries), msg
	e.OK, e.Code = res.Applied, res.Reason
	s.emit(e)
	return res
}

// applyDeduped is the correct consumer: the event id is recorded with the
// effect, and a seen id is skipped.
func applyDeduped(s *System, row OutboxRow) ApplyResult {
	if s.consumer.seenEvent(row.EventID) {
		return ApplyResult{Reason: CodeDuplicateEvent}
	}
	s.consumer.markSeen(row.EventID)
	s.consumer.record(s.Now(), row)
	return ApplyResult{Applied: true}
}

func (c *Consumer) record(now Time, row OutboxRow) {
	c.effects.push(effectRecord{event: row.EventID, at: now})
}

// Effects returns every applied effect in order.
func (s *System) Effects() []Effect {
	return s.AppendEffects(make([]Effect, 0, s.consumer.effects.len()))
}

// AppendEffects appends the effects, in the order applied, to dst: a
// caller reading them back every seed reuses one buffer.
func (s *System) AppendEffects(dst []Effect) []Effect {
	for i := range s.consumer.effects.len() {
		r := s.consumer.effects.at(i)
		row := s.outbox.rows.at(int(r.event - 1)) // (read in place)
		dst = append(dst, Effect{EventID: r.event, Key: row.key, Stage: row.stage, Tenant: s.outbox.tenants[row.tenant], Job: row.job, At: r.at})
	}
	return dst
}
