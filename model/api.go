package model

// StatusAnswer is what a status query returns: the state and a sanitized
// error code, never raw text (seed 004's 202 + status endpoint).
type StatusAnswer struct {
	Job   JobID
	State State
	Code  Code
}

// Status answers tenant's query about job id. A job of another tenant is
// answered exactly like a job that does not exist. It records no event:
// what the client was told is the client's to record (the simulator's
// clients do), so that a wrong answer cannot hide behind a right event.
func (s *System) Status(tenant string, id JobID) (StatusAnswer, error) {
	j := s.job(id)
	if j == nil || !s.design.Visible(j, tenant) {
		return StatusAnswer{}, ErrNotFound
	}
	return StatusAnswer{Job: id, State: j.State, Code: j.LastCode}, nil
}
