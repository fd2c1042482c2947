package model

// StatusAnswer is what a status query returns: the state and a sanitized
// error code, never raw text (seed 004's 202 + status endpoint).
type StatusAnswer struct {
	Job   JobID
	State State
	Code  Code
}

// Text is the answer as the client's status event shows it: "state=S",
// then " reason=C" when it has a code. The texts are built once: a client
// asks about one event in a hundred, and each concatenation allocated.
func (a StatusAnswer) Text() string {
	if a.State < stateCount && a.Code < codeCount {
		return statusTexts[a.State][a.Code]
	}
	return a.text()
}

func (a StatusAnswer) text() string {
	t := "state=" + a.State.String()
	if a.Code != CodeNone {
		t += " reason=" + a.Code.String()
	}
	return t
}

var statusTexts = func() (t [stateCount][codeCount]string) {
	for st := range stateCount {
		for c := range codeCount {
			t[st][c] = StatusAnswer{State: st, Code: c}.text()
		}
	}
	return t
}()

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
