package model

// StatusAnswer is what a status query returns: the state and a sanitized
// error code, never raw text (seed 004's 202 + status endpoint).
type StatusAnswer struct {
	Job   JobID
	State State
	Code  Code
}

// Status answers tenant's query about job id. A job of another tenant is
// answered exactly like a job that does not exist.
func (s *System) Status(actor Actor, tenant string, id JobID) (StatusAnswer, error) {
	j := s.job(id)
	e := s.event(EvStatus, actor)
	e.Job, e.Tenant = id, tenant
	if j == nil || !s.design.Visible(j, tenant) {
		e.Code = CodeNotFound
		s.emit(e)
		return StatusAnswer{}, ErrNotFound
	}
	e.Key, e.Code, e.OK = j.Key, CodeOK, true
	e.Text = "owner=" + j.Tenant + " state=" + j.State.String()
	s.emit(e)
	return StatusAnswer{Job: id, State: j.State, Code: j.LastCode}, nil
}
